-- A reading of a note's links changed (service.markdown.parse, fences.mask_code_outside_links): a
-- wikilink opened before a backtick keeps its inline code (`[[Note#Use `x` here]]`, Obsidian's help's
-- `[[#`move`|move]]`), as Obsidian reads it; it was read with the code blanked (the subpath
-- 'Use     here', a link into no heading; `[[#`move`|move]]` no heading at all). Only a note holding
-- both `[[` and a backtick can hold such a link: the next reconcile reads those again (an empty
-- content hash makes reconcile.compare read a note whose mtime and size are unchanged, as 0023 and
-- 0025-0034 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (
    SELECT note_id FROM note_text WHERE instr(body, '[[') > 0 AND instr(body, '`') > 0
);
