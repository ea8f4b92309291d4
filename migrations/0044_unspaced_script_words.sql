-- Words of scripts written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar)
-- are searchable inside a sentence (service/retrieval/unspaced.py): unicode61 read a run of such
-- characters as one word, so 机器学习 was not found in "今天我学习了机器学习". A note holding such
-- characters keeps its title and text with a word joiner around each of them in `title_words` /
-- `body_words` (NULL otherwise), and the word index reads `note_words`: those, or the note's own
-- title and text. The word index is made again over that view and merged into one segment (its
-- own triggers with it; a load that had deferred them finds them back and the index whole): ~2.5 s
-- of CPU at 10,000 notes, once. The notes holding such characters are read again by the next
-- reconcile (an empty content hash, as 0038 does), which stores their words. Rebuildable from
-- the vault.
ALTER TABLE note_text ADD COLUMN title_words TEXT;
ALTER TABLE note_text ADD COLUMN body_words TEXT;

CREATE VIEW note_words AS
    SELECT note_id, coalesce(title_words, title) AS title, coalesce(body_words, body) AS body FROM note_text;

DROP TRIGGER IF EXISTS note_text_ai;
DROP TRIGGER IF EXISTS note_text_ad;
DROP TRIGGER IF EXISTS note_text_au;
DELETE FROM deferred_indexes WHERE name IN ('note_text_ai', 'note_text_ad', 'note_text_au');
DROP TABLE fts_words;

CREATE VIRTUAL TABLE fts_words USING fts5(
    title, body,
    content='note_words', content_rowid='note_id',
    tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER note_text_ai AFTER INSERT ON note_text BEGIN
    INSERT INTO fts_words(rowid, title, body)
    VALUES (new.note_id, coalesce(new.title_words, new.title), coalesce(new.body_words, new.body));
END;

CREATE TRIGGER note_text_ad AFTER DELETE ON note_text BEGIN
    INSERT INTO fts_words(fts_words, rowid, title, body)
    VALUES ('delete', old.note_id, coalesce(old.title_words, old.title), coalesce(old.body_words, old.body));
END;

CREATE TRIGGER note_text_au AFTER UPDATE ON note_text BEGIN
    INSERT INTO fts_words(fts_words, rowid, title, body)
    VALUES ('delete', old.note_id, coalesce(old.title_words, old.title), coalesce(old.body_words, old.body));
    INSERT INTO fts_words(rowid, title, body)
    VALUES (new.note_id, coalesce(new.title_words, new.title), coalesce(new.body_words, new.body));
END;

INSERT INTO fts_words(fts_words) VALUES ('rebuild');
INSERT INTO fts_words(fts_words) VALUES ('optimize');  -- one segment, as a settled index is (storage/word_index.py)

UPDATE notes SET etag = '' WHERE id IN (
    SELECT note_id FROM note_text
    WHERE length(CAST(title || body AS BLOB)) <> length(title || body)
      AND (title || body) GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟぀-ヿ㄀-ㇿ㐀-䶿一-鿿ꥠ-꥿가-퟿豈-﫿ｦ-ﾟ𠀀-𱍏]*'
);
