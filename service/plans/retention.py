"""Pruning the plan journal: which finished runs are kept, and deleting the others.

The journal holds the prior bytes of every file a run changed, so it grows with every run; it is
pruned at start-up and after each run (`PlanRuns`). The rule, per vault:

- a run is a candidate when it has finished (any status but `running`) and is either older than
  `max_age_days` (0: no age limit) or not among the vault's `keep_runs` newest runs;
- never pruned, whatever its age or rank: a `running` run; each caller's newest undoable run in
  the vault (finished, journaled changes, not undone — exactly what `undo_last_plan` without a
  `run_id` would reverse for that caller); and an `interrupted` run nobody has undone (a killed
  process left the vault half changed, and its journal is the way back), or one whose start-up
  rollback did not end (`Journal.claim_rollback`: its undo run was killed, or failed); and a run
  an undo is reversing right now (`Journal.claim_undo`: the undo's claim is released if it fails).

Pruning a run deletes its row and its journal entries in one transaction. A kept run may name
a pruned one in `undone_by`/`undoes`; that only says it was undone, which stays true.
"""

from __future__ import annotations

import sqlite3
import time

from service.storage.db import Database

_PROTECTED = """
SELECT id FROM plan_runs WHERE status = 'running'
   OR (status = 'interrupted' AND (undone_by IS NULL
       OR undone_by IN (SELECT u.id FROM plan_runs u WHERE u.status IN ('interrupted', 'failed'))))
   OR undone_by IN (SELECT u.id FROM plan_runs u WHERE u.status = 'running')
UNION
SELECT (SELECT r.id FROM plan_runs r
         WHERE r.vault_id = c.vault_id AND r.caller = c.caller AND r.status != 'running'
           AND NOT (r.kind = 'undo' AND r.status = 'failed')
           AND (r.undone_by IS NULL
                OR r.undone_by IN (SELECT u.id FROM plan_runs u WHERE u.status IN ('interrupted', 'failed')))
           AND EXISTS (SELECT 1 FROM plan_journal j WHERE j.run_id = r.id)
         ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1)
  FROM (SELECT DISTINCT vault_id, caller FROM plan_runs) c
"""

_CANDIDATES = """
SELECT id FROM (
  SELECT id, started_at, ROW_NUMBER() OVER (PARTITION BY vault_id ORDER BY started_at DESC, rowid DESC) AS rank
    FROM plan_runs WHERE status != 'running'
) WHERE rank > ? OR started_at < ?
"""


def prunable(conn: sqlite3.Connection, *, keep_runs: int, max_age_days: float, now: float | None = None) -> list[str]:
    """The ids of the runs the rule above lets go."""
    cutoff = (now if now is not None else time.time()) - max_age_days * 86_400 if max_age_days > 0 else float("-inf")
    protected = {row[0] for row in conn.execute(_PROTECTED) if row[0] is not None}
    return [row[0] for row in conn.execute(_CANDIDATES, (keep_runs, cutoff)) if row[0] not in protected]


async def prune(db: Database, *, keep_runs: int, max_age_days: float, now: float | None = None) -> int:
    """Delete the prunable runs and their journal entries; returns how many runs went."""

    def work(conn: sqlite3.Connection) -> int:
        ids = prunable(conn, keep_runs=keep_runs, max_age_days=max_age_days, now=now)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM plan_journal WHERE run_id IN ({marks})", chunk)
            conn.execute(f"DELETE FROM plan_runs WHERE id IN ({marks})", chunk)
        return len(ids)

    return await db.run_write(work)
