-- A reading of a note's Markdown links changed (service.markdown.parse): a link's text may hold
-- brackets, balanced or escaped, as CommonMark reads it (`[a [b] c](x.md)` was no link at all), and
-- its href is cut at its first '#' as written before it is percent-decoded (`[x](a%23b.md#h)` is
-- note 'a#b.md', heading 'h'; it was read as note 'a', heading 'b.md#h'). Only a note holding '](' and
-- a '%23', a backslash or a '[' before a later '[' can hold such a link: the next reconcile reads
-- those again (an empty content hash makes reconcile.compare read a note whose mtime and size are
-- unchanged, as 0035 and 0042 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (
    SELECT note_id FROM note_text
    WHERE instr(body, '](') > 0
      AND (instr(body, '%23') > 0 OR instr(body, '\') > 0 OR body LIKE '%[%[%](%')
);
