"""The tables of a PostgreSQL memory store, created once per schema (safe to run concurrently).

``memories`` and ``trash`` mirror the SQLite store's; ``changes`` is the change log every device
reads after a gap (``seq`` grows in commit order: writes hold the store's advisory lock while they
allocate it); ``meta`` keeps the schema version and ``pruned_through``, the newest ``seq`` deleted
by pruning (a device whose last seen ``seq`` is older cannot catch up from the log and re-reads
everything instead). JSON is kept as text, byte for byte (key order and all), as in the SQLite store.

Times that decide something are the server's: ``trash.deleted_server`` is when the entry went to the
trash by the server's clock (the entry's own ``deleted_at`` is the deleting computer's, for people
to read), so a computer whose clock is off never ages anyone's trash (version 2; a store of version
1 gains the column at its next opening, its entries counted from then).

The ``memories`` columns are those of ``record.FIELDS``; a store made by an older release gains the
columns of newer fields at its next opening (they have defaults, so that release keeps working).

Version 3 adds the derived card values (``record.DERIVED_COLUMNS``: NULL in every row until a
self-check fills them in, derived on read meanwhile) and the trigger that keeps them honest: a row
written by a session that does not say it keeps them (``SET LOCAL sonetto.keeps_derived``, which
every write of this release does as its transaction begins) has them cleared. A device running an
older release writes rows whose history it changed without them; they read as not known, never
as stale.
"""

from __future__ import annotations

import zlib

from ...record import DERIVED_CARD, DERIVED_COLUMNS, column_definitions, missing_columns

SCHEMA_VERSION = "3"
#: What a write of this release sets as its transaction begins (the trigger below trusts its derived values).
KEEPS_DERIVED = "SET LOCAL sonetto.keeps_derived = 'on'"


def lock_key(schema: str) -> int:
    """The advisory lock that serialises the writes to one store (a signed 64-bit number)."""
    return zlib.crc32(f"sonetto-memory:{schema}".encode()) - 2**31


def create_statements(schema: str) -> list[str]:
    """DDL for ``schema`` (an identifier already checked by ``PgLocation``)."""
    s = f'"{schema}"'
    return [
        f"CREATE SCHEMA IF NOT EXISTS {s}",
        f"CREATE TABLE IF NOT EXISTS {s}.memories ({', '.join(column_definitions())})",
        f"""CREATE TABLE IF NOT EXISTS {s}.trash (
            id TEXT PRIMARY KEY,
            entry TEXT NOT NULL,
            deleted_at TEXT,
            deleted_server TIMESTAMPTZ NOT NULL DEFAULT now())""",
        f"CREATE TABLE IF NOT EXISTS {s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        f"INSERT INTO {s}.meta VALUES ('schema_version', '{SCHEMA_VERSION}') ON CONFLICT DO NOTHING",
        f"INSERT INTO {s}.meta VALUES ('pruned_through', '0') ON CONFLICT DO NOTHING",
        f"""CREATE TABLE IF NOT EXISTS {s}.changes (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time TIMESTAMPTZ NOT NULL DEFAULT now(),
            origin TEXT NOT NULL,
            device TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL,
            turn_id TEXT,
            record TEXT NOT NULL)""",
        f"CREATE INDEX IF NOT EXISTS changes_by_turn ON {s}.changes (turn_id)",
        *_derived_trigger(s),
    ]


def _derived_trigger(s: str) -> list[str]:
    """The trigger that clears the derived card values of a row written without them (see the module
    docstring). Its condition is checked before the function runs: this release's writes pay nothing."""
    cleared = " ".join(f"NEW.{name} := NULL;" for name in DERIVED_CARD)
    return [
        f"""CREATE OR REPLACE FUNCTION {s}.memories_derived_unknown() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN {cleared} RETURN NEW; END $$""",
        f"DROP TRIGGER IF EXISTS memories_derived_unknown ON {s}.memories",
        f"""CREATE TRIGGER memories_derived_unknown BEFORE INSERT OR UPDATE ON {s}.memories FOR EACH ROW
            WHEN (current_setting('sonetto.keeps_derived', true) IS DISTINCT FROM 'on')
            EXECUTE FUNCTION {s}.memories_derived_unknown()""",
    ]


def upgrade_statements(schema: str) -> dict[str, list[str]]:
    """For each older version: the statements that bring a store of it to the next version."""
    s = f'"{schema}"'
    return {
        "1": [f"ALTER TABLE {s}.trash ADD COLUMN IF NOT EXISTS deleted_server TIMESTAMPTZ NOT NULL DEFAULT now()"],
        "2": [*(f"ALTER TABLE {s}.memories ADD COLUMN IF NOT EXISTS {name} {kind}" for name, kind in DERIVED_COLUMNS.items()),
              *_derived_trigger(s)],
    }


def ensure_schema(conn, schema: str) -> None:
    """Create the tables if missing, or bring an older version's up to this one (one transaction,
    under the store's lock: two devices opening a store at once do not trip over each other). A
    newer version's tables, written by a later release on another device, are left as they are."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(schema),))
        exists = conn.execute(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = 'changes'",
            (schema,)).fetchone()
        if not exists:
            for statement in create_statements(schema):
                conn.execute(statement)
            return
        version = conn.execute(f'SELECT value FROM "{schema}".meta WHERE key = \'schema_version\'').fetchone()
        version = version[0] if version else "1"
        upgrades = upgrade_statements(schema)
        while version in upgrades:
            for statement in upgrades[version]:
                conn.execute(statement)
            version = str(int(version) + 1)
            conn.execute(f'UPDATE "{schema}".meta SET value = %s WHERE key = \'schema_version\'', (version,))
        add_columns(conn, schema)


def add_columns(conn, schema: str) -> None:
    """Add the columns of fields newer than the store's ``memories`` table (``record.FIELDS``; each
    has a default, so devices running an older release keep writing the columns they know), and the
    derived values' trigger if it went missing (the derived values are not trusted without it). Lock held."""
    present = [r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = 'memories'",
        (schema,))]
    for clause in missing_columns(present):
        conn.execute(f'ALTER TABLE "{schema}".memories ADD COLUMN IF NOT EXISTS {clause}')
    trigger = conn.execute("SELECT 1 FROM pg_trigger WHERE tgname = 'memories_derived_unknown'"
                           " AND tgrelid = to_regclass(%s)", (f'"{schema}".memories',)).fetchone()
    if trigger is None:  # (dropped by hand: what was written meanwhile is not known, the trigger clears it)
        for statement in _derived_trigger(f'"{schema}"'):
            conn.execute(statement)
        conn.execute(f'UPDATE "{schema}".memories SET {", ".join(f"{name} = NULL" for name in DERIVED_CARD)}')
