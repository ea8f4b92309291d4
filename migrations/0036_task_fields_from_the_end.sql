-- A reading of a task's fields changed (service.markdown.tasks.read_fields, used by parse_note): the
-- Tasks plugin reads a task's fields from the END of its line and stops at the first text that is
-- none (`Call Bob 📅 2026-12-01 about it` has no due date; `[priority:: High]` is no field: its
-- values are lower case), and reads the line as written (a line ending in inline code or a comment
-- ends in no field). They were read anywhere in the line. Only a task with a field read before can
-- lose one, and only a note holding such a task: the next reconcile reads those again (an empty
-- content hash makes reconcile.compare read a note whose mtime and size are unchanged, as 0023 and
-- 0025-0035 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (
    SELECT note_id FROM tasks
    WHERE due IS NOT NULL OR scheduled IS NOT NULL OR start IS NOT NULL OR done IS NOT NULL
       OR priority IS NOT NULL OR created IS NOT NULL OR cancelled IS NOT NULL
       OR recurrence IS NOT NULL OR task_id IS NOT NULL OR depends_on <> '[]'
);
