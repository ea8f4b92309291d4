-- The full-text title of a note (note_text.title, which search weighs as its title) ends with the
-- note's frontmatter aliases (service.markdown.parse.search_title): `SAR` finds the note whose
-- alias it is, as Obsidian's quick switcher does, where the alias is written nowhere else. Notes
-- indexed before have none there: the next reconcile reads every note with an alias again (an
-- empty content hash makes reconcile.compare read a note whose mtime and size are unchanged, as
-- 0023 and 0025-0028 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE aliases IS NOT NULL AND aliases NOT IN ('', '[]');
