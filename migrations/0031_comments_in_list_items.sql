-- A reading of a note's text changed (service.markdown.fences.Comments): an HTML comment block
-- opened in a list item (`- <!--`, as CommonMark reads it) hides the item's lines that follow, to
-- `-->` or to the item's end, so a task, list item or block id there is none. Notes indexed before
-- may hold such tasks, items and block ids. Only a note with a list item can hold one, and every
-- such note has Dataview facts (its list items): the next reconcile reads those notes again (an
-- empty content hash makes reconcile.compare read a note whose mtime and size are unchanged, as
-- 0023 and 0025-0030 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (SELECT note_id FROM dataview_facts WHERE facts <> '');
