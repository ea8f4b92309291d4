-- Who may see a plan run as an MCP task: the token's subject *with* its grant (a digest of the
-- subject, its sorted scopes and its vault binding), recorded when the run opens. A narrowed,
-- read-only or differently bound token of the same subject is told the task does not exist.
-- A run without a row (opened before this table) is no one's task; get_plan_run still reports it.
CREATE TABLE task_owners (
    task_id    TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    created_at REAL NOT NULL
);
