-- Frontmatter is read as Obsidian reads it (service.markdown.frontmatter): a date that does not
-- exist (`due: 2023-02-29`) is its text, where the loader failed and the note was indexed with no
-- properties at all (frontmatter_error 'invalid YAML: ValueError'); `start: 10:30` is the text
-- '10:30', not YAML 1.1's base-60 number 630; numbers are YAML 1.2's (`zip: 01234` is 1234, not the
-- octal 668; `1e3` is 1000.0, not text). Notes indexed before hold the old reading: the next
-- reconcile reads again every note that has frontmatter (an empty content hash makes
-- reconcile.compare read a note whose mtime and size are unchanged, as 0023 does). Notes without
-- frontmatter are not read again. Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE properties != '{}' OR frontmatter_error IS NOT NULL;
