-- Quick captures (issue 37): the durable queue behind `capture`, `list_captures` and
-- `process_capture`. Used in the state database (the data folder), never in the index, which
-- may be rebuilt: a pending capture is the only record of what an agent jotted down until it
-- is filed. The inbox note in the vault lists the same captures for a person.

CREATE TABLE capture_queue (
    n            INTEGER PRIMARY KEY AUTOINCREMENT,  -- arrival order (pagination)
    id           TEXT NOT NULL,                      -- `cap-…`: also the inbox item's block id
    vault_id     TEXT NOT NULL,
    text         TEXT NOT NULL,
    tags         TEXT NOT NULL DEFAULT '[]',         -- JSON list, without '#'
    source       TEXT,                               -- where it came from, as the caller said
    caller       TEXT NOT NULL,                      -- hashed caller
    created_at   REAL NOT NULL,
    inbox        TEXT NOT NULL,                      -- the inbox note it was listed in
    in_inbox     INTEGER NOT NULL DEFAULT 0,         -- 1 once the inbox note lists it
    status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'filed', 'discarded')),
    processed_at REAL,
    processed_by TEXT,                               -- hashed caller
    filed_as     TEXT,                               -- 'note' | 'new_note' | 'entity'
    filed_to     TEXT,                               -- the note path it was filed into
    filed_block  TEXT                                -- the block id of the filed text there
);
CREATE UNIQUE INDEX capture_queue_id ON capture_queue(vault_id, id);
CREATE INDEX capture_queue_by_status ON capture_queue(vault_id, status, n);
CREATE INDEX capture_queue_unlisted ON capture_queue(vault_id, in_inbox) WHERE in_inbox = 0;
