-- Links written in frontmatter properties (`up: "[[Hub]]"`, list items) are links of the note, as
-- in Obsidian: the parser (service.markdown.property_links) adds them to the note's link rows,
-- `property` naming the top-level key they are written in (NULL for a link in the body or a
-- canvas). Notes indexed before hold their body links only: the next reconcile must parse every
-- note again. Clearing the content hash does it: reconcile.compare reads a note whose hash is ''
-- though its mtime and size are unchanged, and re-parses it (its hash differs). The mtime stays
-- the file's: answers given before a note is read again carry its real date. (An index migrated
-- by this file's first text, which also set mtime = -1, is read again just the same: each mtime
-- differs from the file's, and the re-parse stores the real one.) Rebuildable from the vault.
ALTER TABLE links ADD COLUMN property TEXT;
UPDATE notes SET etag = '';
