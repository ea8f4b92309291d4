-- A reading of a note's text changed (service.markdown.fences.Comments): an HTML comment block in
-- a blockquote or callout (`> <!--` … `> -->`, ending with its quote) hides its list items, tasks,
-- headings and block ids as one at the margin does, and a code fence opened inside a comment
-- (`%%` … `%%`, `<!--` … `-->`) ends at the comment's closing mark instead of taking it, and the
-- rest of the note, as code. Notes indexed before may hold tasks, items and block ids from inside
-- such quoted comments and miss those after such a comment, and which notes cannot be told from
-- the index: the next reconcile reads every note again (an empty content hash makes
-- reconcile.compare read a note whose mtime and size are unchanged, as 0023, 0025 and 0026 do).
-- Rebuildable from the vault.
UPDATE notes SET etag = '';
