-- A finding being applied belongs to the server process that claimed it (service.storage.owners,
-- the lock of its plan runs' owner): several servers may share one data folder, and a start-up
-- opens again only the `applying` findings whose claimer is gone (its lock file no longer held),
-- never a live server's (which a second server could then claim and apply twice). Rows from
-- before have no owner: their process is gone (released as before).
ALTER TABLE plane_findings ADD COLUMN claim_owner TEXT;
