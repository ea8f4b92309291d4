-- What the sensitive-content guard says of each note's indexed version (service.tools.sensitive):
-- filled in the background once a vault's index is ready (service.tools.query_warmup), so that a
-- search showing a note reads its verdict instead of scanning the note. A row counts only while
-- its etag is the note's current one and its guard is the running guard's fingerprint
-- (`Guard.fingerprint`: patterns, secret keys, scanner version); any other row is scanned again.
CREATE TABLE secret_verdicts (
    note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    guard   TEXT NOT NULL,                 -- the fingerprint of the guard that judged it
    etag    TEXT NOT NULL,                 -- the note version judged (notes.etag)
    secret  INTEGER NOT NULL,              -- 1: holds a secret
    words   TEXT NOT NULL DEFAULT ''       -- its secret words (3+ word characters), space-separated
);
