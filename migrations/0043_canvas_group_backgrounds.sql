-- A canvas group's background image counts as a link from the canvas (service/indexer/canvas_facts.py):
-- before, a canvas whose only reference to an image was a group background was no backlink of the
-- image, so moving the image left the background naming the old path. The next reconcile reads every
-- canvas again (an empty content hash makes reconcile.compare read a file whose mtime and size are
-- unchanged, as 0038 and 0042 do). Rebuildable from the vault.
UPDATE notes SET etag = '' WHERE path LIKE '%.canvas';
