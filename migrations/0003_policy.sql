-- Policy state: idempotency claims, human confirmations, the audit log and agent sessions.

-- One row per (caller, vault, key): claimed before the handler runs, completed with its result.
CREATE TABLE idempotency_keys (
    caller       TEXT NOT NULL,
    vault_id     TEXT NOT NULL,
    key          TEXT NOT NULL,
    tool         TEXT NOT NULL,
    args_hash    TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('in_flight', 'done')),
    result       TEXT,                    -- JSON: {structured, text, is_error}
    claimed_at   REAL NOT NULL,
    completed_at REAL,
    expires_at   REAL NOT NULL,
    PRIMARY KEY (caller, vault_id, key)
);
CREATE INDEX idempotency_by_expiry ON idempotency_keys(expires_at);

-- A call that needed a human: what it would do, so `vaultgate confirm ARGS_HASH` can show it.
CREATE TABLE confirmation_requests (
    args_hash  TEXT NOT NULL,
    vault_id   TEXT NOT NULL,
    tool       TEXT NOT NULL,
    preview    TEXT NOT NULL,
    caller     TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (args_hash, vault_id)
);

-- Single-use confirmation tokens, stored hashed (SHA-256), bound to vault + tool + args_hash.
CREATE TABLE confirmation_tokens (
    token_hash  TEXT PRIMARY KEY,
    vault_id    TEXT NOT NULL,
    tool        TEXT NOT NULL,
    args_hash   TEXT NOT NULL,
    minted_by   TEXT NOT NULL,
    created_at  REAL NOT NULL,
    expires_at  REAL NOT NULL,
    consumed_at REAL
);
CREATE INDEX confirmation_tokens_by_expiry ON confirmation_tokens(expires_at);

-- The audit log: one row per tool call (argument hash only, never raw arguments).
CREATE TABLE event_log (
    id             INTEGER PRIMARY KEY,
    at             REAL NOT NULL,
    vault_id       TEXT,
    tool           TEXT NOT NULL,
    caller_hash    TEXT NOT NULL,
    transport      TEXT NOT NULL,
    status         TEXT NOT NULL,         -- ok | error
    error_code     TEXT,
    args_hash      TEXT NOT NULL,
    duration_ms    REAL NOT NULL,
    correlation_id TEXT NOT NULL,
    confirmed      INTEGER NOT NULL DEFAULT 0,
    replayed       INTEGER NOT NULL DEFAULT 0,
    overflow_bytes INTEGER,
    session_id     TEXT
);
CREATE INDEX event_log_by_time ON event_log(at);
CREATE INDEX event_log_by_tool ON event_log(tool, at);

-- Agent sessions (start_session / end_session); calls inside are mirrored to a JSONL trace.
CREATE TABLE agent_sessions (
    id          TEXT PRIMARY KEY,
    vault_id    TEXT NOT NULL,
    caller      TEXT NOT NULL,
    name        TEXT NOT NULL,
    trace_path  TEXT NOT NULL,
    started_at  REAL NOT NULL,
    ended_at    REAL,
    calls       INTEGER NOT NULL DEFAULT 0
);
