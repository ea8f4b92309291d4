-- Links written in frontmatter properties (`up: "[[Hub]]"`, list items) are links of the note, as
-- in Obsidian: the parser (service.markdown.property_links) adds them to the note's link rows,
-- `property` naming the top-level key they are written in (NULL for a link in the body or a
-- canvas). Notes indexed before hold their body links only: the next reconcile must parse every
-- note again. It reads only the notes whose mtime or size differ from the index's
-- (reconcile.compare), and re-parses only those whose content hash differs (else it just touches
-- them): both are forgotten here. (0011 cleared the hash alone, so unchanged files were neither
-- read nor re-parsed.) Rebuildable from the vault.
ALTER TABLE links ADD COLUMN property TEXT;
UPDATE notes SET etag = '', mtime = -1;
