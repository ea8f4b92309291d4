-- Dataview's inline fields of a page no longer include those written on a task's line
-- (service.dataview.fields): in Dataview a task's `[key:: value]` is the task's own field, never
-- its page's, so a property `due` and a task's `[due:: …]` left `due` a list of both where
-- Dataview has the property alone. Notes indexed before hold such fields in `dataview_facts`: the
-- next reconcile reads every note holding a task and an inline field again (an empty content hash
-- makes reconcile.compare read a note whose mtime and size are unchanged, as 0023-0028 do).
-- Rebuildable from the vault.
UPDATE notes SET etag = ''
WHERE id IN (SELECT note_id FROM tasks)
  AND id IN (SELECT note_id FROM dataview_facts WHERE facts <> '' AND json_array_length(facts, '$.f') > 0);
