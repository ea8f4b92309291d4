-- The embedding job's backlog and index_status's counts ask "has this chunk text a vector?" of
-- every chunk. Answered through the rows of `embeddings` (a vector inline in each) that was
-- 2-10 s a query at 60,000 chunks; through a key-only index and a covering index of the chunks'
-- hashes it is about 0.1 s.
CREATE INDEX IF NOT EXISTS embeddings_keys ON embeddings(model, hash);
CREATE INDEX IF NOT EXISTS chunks_by_vault_hash ON chunks(vault_id, hash);
