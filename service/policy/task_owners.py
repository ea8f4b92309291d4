"""Who owns an MCP task: the token's subject *with* its grant.

A task (a plan run, a reindex, a consolidation run, an OCR job) belongs to the caller that
started it, and the caller is the subject together with what it may do and see: its sorted
scopes and its vault binding (`owner_key`), the rule docs/policies.md gives stored results. A
narrowed, read-only or differently bound token of the same subject neither lists, gets, reads
the result of, nor cancels it: for that token the task does not exist (get_plan_run and
cancel_plan apply the same rule to a run with a recorded owner).

Job tasks keep the key in memory with the task (`service.protocol.job_tasks`). A plan run is a
task for as long as its journal row lives, across restarts, so its owner is stored
(`TaskOwners`, table `task_owners` in the state database) when the run opens; rows of runs the
journal pruned are dropped as new ones are recorded.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time

from service.storage.db import Database
from service.types import Principal


def owner_key(principal: Principal) -> str:
    """The owner of the principal's tasks: a digest of its subject, sorted scopes and vault binding."""
    grant = "\n".join([principal.subject, principal.vault or "", *sorted(principal.scopes)])
    return hashlib.sha256(grant.encode()).hexdigest()[:32]


class TaskOwners:
    """The stored owners of plan-run tasks (keyed by run id)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(self, task_id: str, principal: Principal) -> None:
        owner, now = owner_key(principal), time.time()

        def write(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO task_owners(task_id, owner, created_at) VALUES (?,?,?)", (task_id, owner, now)
            )
            conn.execute("DELETE FROM task_owners WHERE task_id NOT IN (SELECT id FROM plan_runs)")

        await self.db.run_write(write)

    async def owner(self, task_id: str) -> str | None:
        """The recorded owner key of `task_id` (None: not recorded, e.g. a run opened before the table)."""
        row = await self.db.fetchone("SELECT owner FROM task_owners WHERE task_id = ?", (task_id,))
        return str(row[0]) if row is not None else None

    async def owns(self, principal: Principal, task_id: str) -> bool:
        return await self.owner(task_id) == owner_key(principal)

    async def owned(self, principal: Principal, task_ids: list[str]) -> set[str]:
        """Which of `task_ids` the principal owns."""
        if not task_ids:
            return set()
        marks = ",".join("?" * len(task_ids))
        rows = await self.db.fetchall(
            f"SELECT task_id FROM task_owners WHERE owner = ? AND task_id IN ({marks})",
            (owner_key(principal), *task_ids),
        )
        return {str(r[0]) for r in rows}
