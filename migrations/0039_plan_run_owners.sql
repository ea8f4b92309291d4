-- A plan run belongs to the server process that opened it (service.plans.owners): several servers
-- may share one data folder, and a start-up recovers only the `running` runs whose owner is gone
-- (its lock file no longer held), never a live server's. Rows from before have no owner: their
-- process is gone (they are recovered as before).
ALTER TABLE plan_runs ADD COLUMN owner TEXT;
