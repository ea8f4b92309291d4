-- A search reads the rows of hundreds of candidate chunks a call (note, position, heading; not
-- their texts). Chunk rows hold their texts inline, so each lookup through the table touches
-- its own page; this covering index keeps those columns a few dozen bytes a chunk. 400 rows of
-- the 10k-note workload: 2.1-2.3 ms through the table, 1.3-1.4 ms through the index, when the
-- scan before has evicted the CPU caches (docs/benchmarks.md).
CREATE INDEX IF NOT EXISTS chunks_rows ON chunks(id, note_id, position, heading);
