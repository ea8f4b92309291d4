-- Secondary indexes of the derived-row tables are dropped while an empty index is bulk-loaded
-- and built once at the end (sorting once beats ~300k random b-tree inserts for 10k notes).
-- Their definitions wait here meanwhile, in the same transaction as the DROP, so a process
-- that dies mid-load leaves what the next start needs to build them again.
CREATE TABLE deferred_indexes (
    name TEXT PRIMARY KEY,
    sql  TEXT NOT NULL
);
