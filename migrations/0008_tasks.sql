-- Tasks plugin fields beyond the dates the index stored (service/markdown/tasks.py reads them in
-- both of the plugin's formats): created and cancelled dates, the recurrence rule, the task id
-- and the ids it depends on (JSON list). Notes holding tasks get an impossible mtime and etag so
-- the next sync parses them again (an unchanged etag would only refresh the mtime) and fills the
-- new columns.
ALTER TABLE tasks ADD COLUMN created TEXT;
ALTER TABLE tasks ADD COLUMN cancelled TEXT;
ALTER TABLE tasks ADD COLUMN recurrence TEXT;
ALTER TABLE tasks ADD COLUMN task_id TEXT;
ALTER TABLE tasks ADD COLUMN depends_on TEXT NOT NULL DEFAULT '[]';
CREATE INDEX tasks_by_vault_status ON tasks(vault_id, status);
UPDATE notes SET mtime = -1, etag = '' WHERE id IN (SELECT DISTINCT note_id FROM tasks);
