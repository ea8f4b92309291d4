-- A reading of a note's text changed (service.markdown.parse): a list item, task or block id
-- inside a comment (`%%` … `%%`, or an HTML comment block `<!--` … `-->`) is none, as in
-- Obsidian, its Tasks plugin and Dataview (a line starting inside a comment holds no list item
-- or task; a block id whose line ends inside one is none). Notes indexed before still hold such
-- tasks, list items and block ids, and which ones cannot be told from the index: the next
-- reconcile reads every note again (an empty content hash makes reconcile.compare read a note
-- whose mtime and size are unchanged, as 0023 and 0025 do). Rebuildable from the vault.
UPDATE notes SET etag = '';
