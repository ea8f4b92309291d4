-- A reindex job belongs to the server process that started it (service.storage.owners): several
-- servers may share one cache folder, and a start-up marks failed ('interrupted') only the
-- queued/running jobs whose owner is gone (its lock file in <cache>/job-owners no longer held),
-- never a live server's. Rows from before have no owner: their process is gone.
ALTER TABLE jobs ADD COLUMN owner TEXT;
