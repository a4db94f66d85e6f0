"""The seed's ``memory.yaml`` store: the file's text (format.py), safe reading (safe.py), the append-only
change log (change_log.py), taking in what is on disk (sync.py) and the store itself (store.py)."""
