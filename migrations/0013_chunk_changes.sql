-- What changed for the semantic scan, in order: a chunk row added, dropped (a note's cascade
-- included) or given other text, and a vector stored or dropped for a text that chunks hold. The
-- in-memory scan matrix (service/semantic/vectors.py, ScanCache) remembers the last `seq` it
-- reflects and re-reads only the chunks logged after it, instead of the (id, hash) list of every
-- chunk after each change (0.4-0.8 s at 60,000 chunks). The embedding job keeps the newest rows.
CREATE TABLE IF NOT EXISTS chunk_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    vault_id TEXT NOT NULL,
    chunk_id INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS chunk_changes_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_changes(vault_id, chunk_id) VALUES (new.vault_id, new.id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_changes_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_changes(vault_id, chunk_id) VALUES (old.vault_id, old.id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_changes_au AFTER UPDATE OF id, vault_id, hash ON chunks BEGIN
    INSERT INTO chunk_changes(vault_id, chunk_id) VALUES (old.vault_id, old.id);
    INSERT INTO chunk_changes(vault_id, chunk_id) VALUES (new.vault_id, new.id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_changes_ei AFTER INSERT ON embeddings BEGIN
    INSERT INTO chunk_changes(vault_id, chunk_id) SELECT vault_id, id FROM chunks WHERE hash = new.hash;
END;
CREATE TRIGGER IF NOT EXISTS chunk_changes_ed AFTER DELETE ON embeddings BEGIN
    INSERT INTO chunk_changes(vault_id, chunk_id) SELECT vault_id, id FROM chunks WHERE hash = old.hash;
END;
