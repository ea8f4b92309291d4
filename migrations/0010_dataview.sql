-- Dataview facts of each note: inline fields (`key:: value`, `[key:: value]`, `(key:: value)`)
-- and list items with their task status, as one compact JSON document per note
-- (service.dataview.fields). A note without either has no row. Rebuildable from the vault.
CREATE TABLE dataview_facts (
    note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    facts   TEXT NOT NULL
);

-- Notes indexed before this table existed have no facts: forget their content hashes so the
-- next reconcile parses every note again (unchanged files are otherwise only touched).
UPDATE notes SET etag = '';
