-- Chunks of notes for semantic search, and their embeddings.
-- A chunk is keyed on its note and position and carries the hash of the text embedded for it
-- (note title + heading path + passage). Vectors are stored by (model, hash): an edit embeds
-- only chunks whose text changed, and a moved note (new row, same text) finds its vectors.

CREATE TABLE chunks (
    id           INTEGER PRIMARY KEY,
    vault_id     TEXT NOT NULL,
    note_id      INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    heading      TEXT,                        -- the innermost heading (NULL before the first one)
    heading_path TEXT NOT NULL DEFAULT '[]',  -- JSON list, top level first
    text         TEXT NOT NULL,               -- the passage shown to callers
    embed_text   TEXT NOT NULL,               -- what the model embeds
    hash         TEXT NOT NULL,               -- of embed_text
    tokens       INTEGER NOT NULL,
    vec_model    TEXT,                        -- the model whose sqlite-vec table holds this chunk
    UNIQUE (note_id, position)
);
CREATE INDEX chunks_by_vault ON chunks(vault_id);
CREATE INDEX chunks_by_hash ON chunks(hash);

-- What each note's chunks were made from: a note whose etag or title differs is chunked again.
CREATE TABLE chunk_sources (
    note_id  INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    etag     TEXT NOT NULL,
    title    TEXT NOT NULL,
    chunker  TEXT NOT NULL
);

-- One vector per model and chunk text (float32, L2-normalised).
CREATE TABLE embeddings (
    model  TEXT NOT NULL,
    hash   TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;

-- The last model every chunk of a vault had a vector for, and the settings that built it: while
-- a new model's vectors are computed, searches use these (and say so).
CREATE TABLE embedding_state (
    vault_id    TEXT PRIMARY KEY,
    model       TEXT NOT NULL,
    settings    TEXT NOT NULL,             -- JSON of the [embeddings] section (no secrets: keys come from env)
    updated_at  REAL NOT NULL
);

-- Chunk ids deleted since the vector index last caught up (sqlite-vec tables are created at run
-- time, sized to the model, and cleaned from this list).
CREATE TABLE chunks_dropped (chunk_id INTEGER PRIMARY KEY);
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT OR IGNORE INTO chunks_dropped(chunk_id) VALUES (old.id);
END;
