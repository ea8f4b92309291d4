-- Each task's indentation (service.markdown.parse): the text before its list marker as written,
-- spaces, tabs and the `>` of a blockquote or callout, which the Tasks plugin's `exclude sub-items`
-- reads (a task is a sub-item when it is indented; in a quote, when more than one space follows
-- the last `>`). Tasks indexed before have none recorded: the next reconcile reads every note
-- holding a task again (an empty content hash makes reconcile.compare read a note whose mtime and
-- size are unchanged, as 0023 and 0025-0027 do). Rebuildable from the vault.
ALTER TABLE tasks ADD COLUMN indent TEXT NOT NULL DEFAULT '';
UPDATE notes SET etag = '' WHERE id IN (SELECT DISTINCT note_id FROM tasks);
