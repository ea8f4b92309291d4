-- Core tables: the vaults this cache has served and process-level key/value state.
CREATE TABLE vaults (
    vault_id   TEXT PRIMARY KEY,
    root       TEXT NOT NULL,
    name       TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
