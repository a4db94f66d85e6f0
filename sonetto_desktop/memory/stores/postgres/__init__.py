"""One memory on several devices in a PostgreSQL database: the store (store.py), its tables (schema.py),
point writes with the change log (transaction.py), the connection (connection.py, location.py), following
other devices (feed.py, listener.py), the offline copy (cache.py) and moving a data dir onto a server (migrate.py)."""
