-- One title rule, Obsidian's: a note's title is its file's base name without '.md' (it was the
-- frontmatter `title`, else the first H1, else the file name). Rows indexed before this rule are
-- rewritten to exactly what the parser now derives (service.markdown.parse): `notes.title` is the
-- base name, and the full-text title (`note_text.title`, weighed by search) is the base name
-- followed by the old title when that said something else, so a note stays findable by the
-- heading it displays. The note_text update trigger keeps the FTS tables in step.
UPDATE notes SET title = (
    SELECT CASE WHEN lower(substr(base, -3)) = '.md' THEN substr(base, 1, length(base) - 3) ELSE base END
    FROM (SELECT substr(notes.path, length(rtrim(notes.path, replace(notes.path, '/', ''))) + 1) AS base)
);

UPDATE note_text SET title = (SELECT n.title FROM notes n WHERE n.id = note_text.note_id) || ' ' || title
WHERE title != (SELECT n.title FROM notes n WHERE n.id = note_text.note_id);
