-- Two readings of a note's text changed (service.markdown.parse, service.markdown.line_ends):
-- a heading line inside a comment (`%%` … `%%` across lines, or an HTML comment block `<!--` …
-- `-->`) is no heading, as in Obsidian's outline; and a carriage return alone ends a line, as in
-- Obsidian's editor (a note saved with classic Mac OS line ends was one line: no frontmatter,
-- headings or tasks). Notes indexed before hold the old reading, and which ones are affected
-- cannot be told from the index: the next reconcile reads every note again (an empty content
-- hash makes reconcile.compare read a note whose mtime and size are unchanged, as 0023 does).
-- Rebuildable from the vault.
UPDATE notes SET etag = '';
