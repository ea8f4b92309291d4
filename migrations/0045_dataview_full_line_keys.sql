-- A whole line `Key:: value` is a Dataview field only when Dataview's full-line key parser takes
-- the key (cc18b87b, service.dataview.fields): prose such as "The C++ std::vector is fast", or
-- keys like `e.g.::` and `Mr. Smith::`, made fields here and none in Dataview, and `**Status**:: done`
-- is the field `Status`. Notes indexed before hold the old reading in `dataview_facts`: the next
-- reconcile reads every note with an inline field again (an empty content hash makes
-- reconcile.compare read a note whose mtime and size are unchanged, as 0030 does). Rebuildable
-- from the vault.
UPDATE notes SET etag = ''
WHERE id IN (SELECT note_id FROM dataview_facts WHERE facts <> '' AND json_array_length(facts, '$.f') > 0);
