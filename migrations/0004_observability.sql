-- Observability lookups (the event_log and agent_sessions tables themselves are in 0003).

-- get_audit_log: one vault's newest rows first, paged by id (keyset).
CREATE INDEX event_log_by_vault ON event_log(vault_id, id);

-- The maintenance sweep trims ended sessions by age; start-up reloads the open ones.
CREATE INDEX agent_sessions_by_end ON agent_sessions(ended_at);
