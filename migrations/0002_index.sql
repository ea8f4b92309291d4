-- The vault index: one row per Markdown note plus its parsed facts. Every row is scoped by
-- vault_id (directly or through notes.id). Rebuildable from the vault at any time.

CREATE TABLE notes (
    id                INTEGER PRIMARY KEY,
    vault_id          TEXT NOT NULL,
    path              TEXT NOT NULL,          -- vault-relative POSIX path, NFC
    folder            TEXT NOT NULL,          -- '' for the vault root
    name              TEXT NOT NULL,          -- lower-cased file name without '.md' (link resolution)
    title             TEXT NOT NULL,
    aliases           TEXT NOT NULL DEFAULT '[]',   -- JSON list
    properties        TEXT NOT NULL DEFAULT '{}',   -- JSON object (frontmatter)
    tags              TEXT NOT NULL DEFAULT '[]',   -- JSON list, without '#'
    frontmatter_error TEXT,
    mtime             REAL NOT NULL,
    ctime             REAL NOT NULL DEFAULT 0,
    size              INTEGER NOT NULL,
    etag              TEXT NOT NULL,
    word_count        INTEGER NOT NULL DEFAULT 0,
    indexed_at        REAL NOT NULL,
    UNIQUE (vault_id, path)
);
CREATE INDEX notes_by_name ON notes(vault_id, name);
CREATE INDEX notes_by_folder ON notes(vault_id, folder);
CREATE INDEX notes_by_mtime ON notes(vault_id, mtime);

-- Text for full-text search; FTS tables are external-content tables kept in sync by triggers.
CREATE TABLE note_text (
    note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    title   TEXT NOT NULL,
    body    TEXT NOT NULL
);

CREATE VIRTUAL TABLE fts_words USING fts5(
    title, body,
    content='note_text', content_rowid='note_id',
    tokenize='porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE fts_trigram USING fts5(
    body,
    content='note_text', content_rowid='note_id',
    tokenize='trigram', detail='none'      -- substring prefilter via LIKE/GLOB; no phrase queries needed
);

-- The trigram index can be deferred during a bulk (cold) index and rebuilt in one pass at the
-- end ('rebuild' is ~3x faster than row-by-row); while deferred it is not consulted.
CREATE TABLE fts_control (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    trigram_deferred INTEGER NOT NULL DEFAULT 0
);
INSERT INTO fts_control(id, trigram_deferred) VALUES (1, 0);

CREATE TRIGGER note_text_ai AFTER INSERT ON note_text BEGIN
    INSERT INTO fts_words(rowid, title, body) VALUES (new.note_id, new.title, new.body);
END;

CREATE TRIGGER note_text_ad AFTER DELETE ON note_text BEGIN
    INSERT INTO fts_words(fts_words, rowid, title, body) VALUES ('delete', old.note_id, old.title, old.body);
END;

CREATE TRIGGER note_text_au AFTER UPDATE ON note_text BEGIN
    INSERT INTO fts_words(fts_words, rowid, title, body) VALUES ('delete', old.note_id, old.title, old.body);
    INSERT INTO fts_words(rowid, title, body) VALUES (new.note_id, new.title, new.body);
END;

CREATE TRIGGER note_text_trigram_ai AFTER INSERT ON note_text
WHEN (SELECT trigram_deferred FROM fts_control WHERE id = 1) = 0 BEGIN
    INSERT INTO fts_trigram(rowid, body) VALUES (new.note_id, new.body);
END;

CREATE TRIGGER note_text_trigram_ad AFTER DELETE ON note_text
WHEN (SELECT trigram_deferred FROM fts_control WHERE id = 1) = 0 BEGIN
    INSERT INTO fts_trigram(fts_trigram, rowid, body) VALUES ('delete', old.note_id, old.body);
END;

CREATE TRIGGER note_text_trigram_au AFTER UPDATE ON note_text
WHEN (SELECT trigram_deferred FROM fts_control WHERE id = 1) = 0 BEGIN
    INSERT INTO fts_trigram(fts_trigram, rowid, body) VALUES ('delete', old.note_id, old.body);
    INSERT INTO fts_trigram(rowid, body) VALUES (new.note_id, new.body);
END;

CREATE TABLE note_tags (
    note_id   INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    vault_id  TEXT NOT NULL,
    tag       TEXT NOT NULL,                  -- as written, without '#'
    tag_lower TEXT NOT NULL,                  -- for case-insensitive and nested ('a' matches 'a/b') lookups
    source    TEXT NOT NULL CHECK (source IN ('frontmatter', 'inline')),
    PRIMARY KEY (note_id, tag_lower, source)
);
CREATE INDEX note_tags_by_tag ON note_tags(vault_id, tag_lower);

-- One row per scalar property value; list values are exploded with their position.
CREATE TABLE note_properties (
    note_id    INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    vault_id   TEXT NOT NULL,
    key        TEXT NOT NULL,
    list_index INTEGER,                       -- NULL for a scalar, 0.. for list items
    value_type TEXT NOT NULL,                 -- string | number | boolean | date | datetime | null | object
    value_text TEXT,                          -- string form (lower-case copy in value_lower)
    value_lower TEXT,
    value_num  REAL,                          -- numbers, booleans (0/1) and dates (Unix seconds)
    value_json TEXT NOT NULL
);
CREATE INDEX note_properties_by_key ON note_properties(vault_id, key);
CREATE INDEX note_properties_by_note ON note_properties(note_id);

CREATE TABLE links (
    id          INTEGER PRIMARY KEY,
    vault_id    TEXT NOT NULL,
    src_id      INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    target_raw  TEXT NOT NULL,                -- link target as written ('' for [[#Heading]])
    target_path TEXT,                         -- resolved vault path, NULL when unresolved
    subpath     TEXT,                         -- heading path or ^block id
    alias       TEXT,
    embed       INTEGER NOT NULL DEFAULT 0,
    kind        TEXT NOT NULL,                -- wikilink | markdown
    line        INTEGER NOT NULL              -- 0-based line in the source file
);
CREATE INDEX links_by_src ON links(src_id);
CREATE INDEX links_by_target ON links(vault_id, target_path);
CREATE INDEX links_unresolved ON links(vault_id, target_raw) WHERE target_path IS NULL;

CREATE TABLE headings (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    level   INTEGER NOT NULL,
    text    TEXT NOT NULL,
    line    INTEGER NOT NULL
);
CREATE INDEX headings_by_note ON headings(note_id);

CREATE TABLE blocks (
    note_id  INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    block_id TEXT NOT NULL,
    line     INTEGER NOT NULL,
    PRIMARY KEY (note_id, block_id)
);

CREATE TABLE tasks (
    id        INTEGER PRIMARY KEY,
    note_id   INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    vault_id  TEXT NOT NULL,
    line      INTEGER NOT NULL,
    status    TEXT NOT NULL,                  -- the character between the brackets
    text      TEXT NOT NULL,
    due       TEXT,
    scheduled TEXT,
    start     TEXT,
    done      TEXT,
    priority  TEXT,
    tags      TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX tasks_by_note ON tasks(note_id);
CREATE INDEX tasks_by_vault_due ON tasks(vault_id, due);

-- Per-vault index bookkeeping and background jobs (reindex, later embedding).
CREATE TABLE index_state (
    vault_id        TEXT PRIMARY KEY,
    last_full_sync  REAL,
    last_change     REAL,
    schema_note     TEXT
);

CREATE TABLE jobs (
    id          TEXT PRIMARY KEY,
    vault_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,                -- queued | running | done | failed | cancelled
    progress    INTEGER NOT NULL DEFAULT 0,
    total       INTEGER,
    message     TEXT,
    created_at  REAL NOT NULL,
    started_at  REAL,
    finished_at REAL,
    error       TEXT
);
CREATE INDEX jobs_by_vault ON jobs(vault_id, created_at);
