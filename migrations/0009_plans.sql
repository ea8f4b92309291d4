-- Action plans: runs, their journal of prior file states, and saved macros.
-- Kept in the state database (the data folder), never in the index, which may be rebuilt:
-- a journal is the only copy of what a plan overwrote.

-- One row per plan run (an undo is a run too: kind 'undo', `undoes` the run it reversed).
CREATE TABLE plan_runs (
    id          TEXT PRIMARY KEY,
    vault_id    TEXT NOT NULL,
    caller      TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('plan', 'undo', 'bulk')),
    goal        TEXT NOT NULL,
    plan_hash   TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled', 'interrupted')),
    undoes      TEXT,                     -- kind 'undo': the run it reversed
    undone_by   TEXT,                     -- the undo run that reversed this one
    steps_total INTEGER NOT NULL DEFAULT 0,
    steps_done  INTEGER NOT NULL DEFAULT 0,
    outcome     TEXT,                     -- JSON: each step's outcome
    started_at  REAL NOT NULL,
    ended_at    REAL
);
CREATE INDEX plan_runs_by_vault ON plan_runs(vault_id, started_at);

-- Before a run changes a file: its prior content (NULL: absent) and the etag it will have.
CREATE TABLE plan_journal (
    run_id   TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    step_id  TEXT NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('file', 'folder', 'move')),
    path     TEXT NOT NULL,
    dst      TEXT,                        -- kind 'move': where the folder went
    prior    BLOB,
    new_etag TEXT,
    at       REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Saved plans with typed parameters, per vault.
CREATE TABLE plan_macros (
    vault_id    TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    plan        TEXT NOT NULL,            -- JSON: the plan document
    created_by  TEXT NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    PRIMARY KEY (vault_id, name)
);
