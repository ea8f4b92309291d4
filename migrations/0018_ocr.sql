-- Text read from images and scanned PDFs (issue 38, service.ocr). In the index database: a cache,
-- rebuilt by reading the files again.
-- What a file's content says, once per content and engine: a file copied or renamed is not read again.
CREATE TABLE ocr_cache (
    digest     TEXT NOT NULL,                 -- content hash of the file's bytes (service.vault.files.etag_of)
    engine     TEXT NOT NULL,                 -- the recognizer and its version
    text       TEXT NOT NULL,                 -- the lines, top to bottom, one per line
    lines      TEXT NOT NULL DEFAULT '[]',    -- JSON: [text, confidence, [x0, y0, x1, y1], page]
    pages      INTEGER NOT NULL DEFAULT 1,    -- pages the file has (1 for an image)
    pages_read INTEGER NOT NULL DEFAULT 1,
    seconds    REAL NOT NULL DEFAULT 0,       -- how long recognizing it took
    created_at REAL NOT NULL,
    PRIMARY KEY (digest, engine)
);

-- Which vault file holds which content (or why it could not be read): the text the index adds to
-- the notes that embed the file, and what ocr_bulk skips when the file is unchanged.
CREATE TABLE ocr_files (
    vault_id TEXT NOT NULL,
    path     TEXT NOT NULL,
    digest   TEXT NOT NULL,
    engine   TEXT NOT NULL,
    mtime    REAL NOT NULL,
    size     INTEGER NOT NULL,
    error    TEXT,                            -- the error code when it could not be read
    read_at  REAL NOT NULL,
    PRIMARY KEY (vault_id, path)
);
