"""The memory stores: the store contract every backend keeps (base.py, crud.py, transaction.py), the
YAML file (yaml/), SQLite (sqlite.py) and PostgreSQL (postgres/) backends and their registry (backends.py), opening a data dir's store and migrating
between backends (migrate.py), and following other processes' writes (watch.py). No Qt."""
