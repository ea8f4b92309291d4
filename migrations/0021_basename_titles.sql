-- One title rule for every indexed file, Obsidian's `file.basename`: the file name less its last
-- extension (service.markdown.parse.note_title). Notes already had it ('Note.md' is 'Note'); a
-- canvas was titled by its whole file name ('Board.canvas') while read_canvas said 'Board'. Rows
-- indexed before this rule are rewritten to what the indexer now stores, so an existing index
-- agrees without a rebuild. The full-text title of a canvas was already the basename; a row that
-- still holds the whole file name there is set to the same basename (the note_text update trigger
-- keeps the FTS tables in step).
UPDATE notes SET title = (
    SELECT CASE WHEN length(stem) > 1 THEN substr(stem, 1, length(stem) - 1) ELSE base END
    FROM (SELECT base, rtrim(base, replace(base, '.', '')) AS stem
          FROM (SELECT substr(notes.path, length(rtrim(notes.path, replace(notes.path, '/', ''))) + 1) AS base))
)
WHERE lower(path) NOT LIKE '%.md';

UPDATE note_text SET title = (SELECT n.title FROM notes n WHERE n.id = note_text.note_id)
WHERE note_id IN (SELECT id FROM notes WHERE lower(path) NOT LIKE '%.md')
  AND title = (SELECT substr(n.path, length(rtrim(n.path, replace(n.path, '/', ''))) + 1)
               FROM notes n WHERE n.id = note_text.note_id);
