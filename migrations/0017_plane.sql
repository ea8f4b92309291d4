-- The consolidation plane (issue 40, service.plane): each vault's schedule and the findings of its
-- runs. Used in the state database (the data folder): a dismissed finding must stay dismissed
-- when the index is rebuilt.
CREATE TABLE plane_state (
    vault_id    TEXT PRIMARY KEY,
    last_run    REAL,                          -- when the last run ended (Unix seconds)
    last_run_id TEXT,
    cursor      REAL,                          -- changes after this time are the next run's "new"
    summary     TEXT NOT NULL DEFAULT '{}'     -- JSON: the last run's jobs, skips and counts
);

CREATE TABLE plane_findings (
    id         TEXT PRIMARY KEY,               -- `f-…`
    vault_id   TEXT NOT NULL,
    run_id     TEXT NOT NULL,                  -- the run that last found it
    job        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,                  -- what it is about, stable across runs (dismissals stick)
    title      TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '{}',     -- JSON
    paths      TEXT NOT NULL DEFAULT '[]',     -- JSON: the notes it is about
    etags      TEXT NOT NULL DEFAULT '{}',     -- JSON: path -> etag when found (a changed note refuses its plan)
    plan       TEXT,                           -- JSON action plan, NULL for a finding to read only
    status     TEXT NOT NULL DEFAULT 'open',   -- open | dismissed | applied | gone
    found_at   REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (vault_id, key)
);
CREATE INDEX plane_findings_by_status ON plane_findings(vault_id, status, kind);
