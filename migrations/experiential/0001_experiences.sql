-- experiential.db (issue 37): agents' low-trust notes about their own work — what worked, what
-- failed, preferences seen — kept in the data folder on this chain of their own, never in the
-- vault. One reaches the vault only as an observation a human confirmed (promote_experience).

CREATE TABLE experiences (
    n            INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,               -- `exp-…`
    vault_id     TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('worked', 'failed', 'preference', 'note')),
    text         TEXT NOT NULL,
    tool         TEXT,                               -- the tool the experience is about
    context      TEXT,                               -- what the agent was doing
    confidence   REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    tags         TEXT NOT NULL DEFAULT '[]',         -- JSON list
    caller       TEXT NOT NULL,                      -- hashed caller
    created_at   REAL NOT NULL,
    promoted_at  REAL,
    promoted_by  TEXT,                               -- hashed caller of the confirmed promotion
    promoted_to  TEXT,                               -- entity name
    promoted_path TEXT,                              -- the entity's note
    promoted_block TEXT                              -- the observation's block id
);
CREATE INDEX experiences_by_vault ON experiences(vault_id, n);
CREATE INDEX experiences_by_kind ON experiences(vault_id, kind, n);
