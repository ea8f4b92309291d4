-- A link naming a file several files share the name of resolves as Obsidian's lookup does: the path
-- as written, else from the linking note's folder, else the SHORTEST PATH (`a/b/Note.md` before
-- `zzzz/Note.md`; service.obsidian.link_order). The fewest folders came before the path's length.
-- Only a link resolved to a note whose name another note shares (with or without '.md'), or to a
-- file that is no note (images, bases and canvases are not in `notes`), can change: the next
-- reconcile reads the notes holding such a link again, resolving their links afresh (an empty
-- content hash makes reconcile.compare read a note whose mtime and size are unchanged, as 0023 and
-- 0025-0037 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (
    SELECT l.src_id FROM links l
    LEFT JOIN notes t ON t.vault_id = l.vault_id AND t.path = l.target_path
    WHERE l.target_path IS NOT NULL AND (
        t.id IS NULL OR EXISTS (
            SELECT 1 FROM notes o
            WHERE o.vault_id = t.vault_id AND o.id <> t.id AND o.name IN (
                t.name, t.name || '.md', CASE WHEN t.name LIKE '%.md' THEN substr(t.name, 1, length(t.name) - 3) END
            )
        )
    )
);
