-- A link spelled in another Unicode form than the file it names ('[[Cafe\u0301]]', as a macOS client
-- may write it, for 'Café.md') names that file, as a path argument does: the link resolver compares
-- names in NFC (service.graph.linkpath.nfc). Before, such a link was stored unresolved. Only an
-- unresolved link holding a character beyond ASCII (its UTF-8 bytes outnumber its characters) can
-- now resolve: the next reconcile reads the notes holding one again, resolving their links afresh (an
-- empty content hash makes reconcile.compare read a note whose mtime and size are unchanged, as
-- 0038 does). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE id IN (
    SELECT src_id FROM links
    WHERE target_path IS NULL AND length(CAST(target_raw AS BLOB)) <> length(target_raw)
);
