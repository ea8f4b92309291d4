-- An idempotency claim names the server process that took it (service.storage.owners: the plan
-- journal's owner, its lock file in <data>/plan-owners held for the process's life): a claim
-- still 'in_flight' whose owner is gone (killed, its lock no longer held) is taken over at once
-- instead of after idempotency.reclaim_seconds. Rows from before have no owner: the time rule.
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
