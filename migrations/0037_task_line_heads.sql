-- A task row keeps the start of its line as written (service.markdown.parse, Task.head: the indent,
-- the list marker, `[ ]` and the spaces after), so tasks_filter's expressions read the plugin's
-- `task.originalMarkdown` and `task.listMarker`. Notes indexed before have no head: the next
-- reconcile reads every note holding a task again (an empty content hash makes reconcile.compare
-- read a note whose mtime and size are unchanged, as 0023 and 0025-0036 do). Rebuildable from the vault.
ALTER TABLE tasks ADD COLUMN head TEXT NOT NULL DEFAULT '';
UPDATE notes SET etag = '' WHERE id IN (SELECT note_id FROM tasks);
