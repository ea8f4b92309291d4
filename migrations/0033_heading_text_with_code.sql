-- A reading of a note's text changed (service.markdown.parse, service.markdown.outline): a heading's
-- text is what the line holds, inline code included (`### `hasTag()`` is the heading '`hasTag()`',
-- which `[[Functions#hasTag]]` names, as in Obsidian); it was read with its code spans blanked (the
-- heading '' there, 'Use     here' for '## Use `x` here'), and '##`x`' (no space after the marks) was
-- a heading. Notes indexed before may hold such headings, and which ones cannot be told from the
-- index: the next reconcile reads every note with a heading again (an empty content hash makes
-- reconcile.compare read a note whose mtime and size are unchanged, as 0023 and 0025-0031 do).
-- Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (SELECT note_id FROM headings);
