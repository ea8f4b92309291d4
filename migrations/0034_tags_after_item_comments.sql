-- A reading of a note's text changed (service.markdown.parse, service.markdown.tag_edit): an HTML
-- comment block opened in a list item (`- <!--`) or a quote (`> <!--`) ends where that item or quote
-- does (0031), and its tags now end there too: a tag on the lines after it was masked up to the next
-- `-->` (`- <!--` then `- [ ] next #tag` at the margin: the task counted, its #tag was no tag). Notes
-- indexed before may have lost such tags; only a note holding `<!--` can: the next reconcile reads
-- those again (an empty content hash makes reconcile.compare read a note whose mtime and size are
-- unchanged, as 0023 and 0025-0031 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (SELECT note_id FROM note_text WHERE instr(body, '<!--') > 0);
