-- Dataview's list items now come from the note parser (service.markdown.parse), the same items
-- the task rows come from: with their section heading and tags, and also inside blockquotes and
-- callouts. Facts indexed before lack them: forget the content hashes so the next reconcile
-- parses every note again (unchanged files are otherwise only touched). Rebuildable from the vault.
UPDATE notes SET etag = '';
