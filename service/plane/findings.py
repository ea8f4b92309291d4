"""Findings of the consolidation plane, kept in the state database (`plane_findings`).

A finding is what one job noticed — a duplicate, a contradiction, a broken link — with the notes
it is about (and their etags when found) and, when something can be done, an action plan in the
plans language (`service.plans`): applying it is validating, previewing and executing that plan,
with the usual confirmation floors, journal and undo. Its `key` says what it is about, stably
across runs: a run that finds it again refreshes it, a dismissed one stays dismissed, and an open
one a later run of its job no longer finds is marked `gone`. Touches `plane_findings` only.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from service.storage.db import Database

Status = Literal["open", "dismissed", "applied", "gone"]


@dataclass(slots=True)
class Finding:
    job: str
    kind: str
    key: str
    title: str
    detail: dict[str, Any] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    etags: dict[str, str] = field(default_factory=dict)
    plan: dict[str, Any] | None = None
    id: str = ""
    status: Status = "open"
    found_at: float = 0.0
    run_id: str = ""


def _row(r: Any) -> Finding:
    return Finding(
        id=r[0],
        run_id=r[1],
        job=r[2],
        kind=r[3],
        key=r[4],
        title=r[5],
        detail=json.loads(r[6]),
        paths=json.loads(r[7]),
        etags=json.loads(r[8]),
        plan=json.loads(r[9]) if r[9] else None,
        status=r[10],
        found_at=float(r[11]),
    )


_COLUMNS = "id, run_id, job, kind, key, title, detail, paths, etags, plan, status, found_at"


class FindingStore:
    def __init__(self, state: Database) -> None:
        self.state = state

    async def record(self, vault_id: str, run_id: str, jobs: list[str], found: list[Finding]) -> dict[str, int]:
        """Keep what the run's `jobs` found: new findings open, known ones refreshed (a dismissed one
        stays dismissed), open ones of those jobs not found again `gone`. Counts by outcome."""
        now = time.time()

        def work(conn: sqlite3.Connection) -> dict[str, int]:
            counts = {"new": 0, "again": 0, "gone": 0}
            keys = set()
            for f in found:
                keys.add(f.key)
                row = conn.execute(
                    "SELECT id, status FROM plane_findings WHERE vault_id = ? AND key = ?", (vault_id, f.key)
                ).fetchone()
                values = (
                    run_id,
                    f.job,
                    f.kind,
                    f.title,
                    json.dumps(f.detail),
                    json.dumps(f.paths),
                    json.dumps(f.etags),
                    json.dumps(f.plan) if f.plan is not None else None,
                )
                if row is None:
                    f.id = "f-" + secrets.token_hex(6)
                    conn.execute(
                        "INSERT INTO plane_findings(id, vault_id, run_id, job, kind, key, title, detail, paths, etags,"
                        " plan, status, found_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,'open',?,?)",
                        (f.id, vault_id, *values[:3], f.key, *values[3:], now, now),
                    )
                    counts["new"] += 1
                    continue
                f.id = str(row[0])
                status = "dismissed" if row[1] == "dismissed" else "open"
                conn.execute(
                    "UPDATE plane_findings SET run_id=?, job=?, kind=?, title=?, detail=?, paths=?, etags=?, plan=?,"
                    " status=?, updated_at=? WHERE id=?",
                    (*values, status, now, f.id),
                )
                counts["again"] += 1
            marks = ",".join("?" * len(jobs))
            if jobs:
                rows = conn.execute(
                    f"SELECT id, key FROM plane_findings WHERE vault_id = ? AND status = 'open' AND job IN ({marks})",
                    (vault_id, *jobs),
                ).fetchall()
                for fid, key in rows:
                    if key not in keys:
                        conn.execute("UPDATE plane_findings SET status='gone', updated_at=? WHERE id=?", (now, fid))
                        counts["gone"] += 1
            return counts

        return await self.state.run_write(work)

    async def page(
        self, vault_id: str, *, status: str | None, kind: str | None, offset: int, limit: int
    ) -> tuple[list[Finding], int]:
        where, params = ["vault_id = ?"], [vault_id]
        if status is not None:
            where.append("status = ?")
            params.append(status)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        sql = " AND ".join(where)
        rows = await self.state.fetchall(
            f"SELECT {_COLUMNS} FROM plane_findings WHERE {sql} ORDER BY found_at, id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        total = await self.state.fetchone(f"SELECT COUNT(*) FROM plane_findings WHERE {sql}", tuple(params))
        return [_row(r) for r in rows], int(total[0])

    async def get(self, vault_id: str, finding_id: str) -> Finding | None:
        row = await self.state.fetchone(
            f"SELECT {_COLUMNS} FROM plane_findings WHERE vault_id = ? AND id = ?", (vault_id, finding_id)
        )
        return _row(row) if row is not None else None

    async def mark(self, finding_id: str, status: Status, *, run_id: str | None = None) -> None:
        """Set its status; `run_id`: the plan run that applied it (kept in its detail, for undo)."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE plane_findings SET status = ?, updated_at = ? WHERE id = ?", (status, time.time(), finding_id)
            )
            if run_id is not None:
                conn.execute(
                    "UPDATE plane_findings SET detail = json_set(detail, '$.applied_run_id', ?) WHERE id = ?",
                    (run_id, finding_id),
                )

        await self.state.run_write(work)

    async def counts(self, vault_id: str) -> dict[str, dict[str, int]]:
        """Findings by kind and status."""
        rows = await self.state.fetchall(
            "SELECT kind, status, COUNT(*) FROM plane_findings WHERE vault_id = ? GROUP BY kind, status", (vault_id,)
        )
        out: dict[str, dict[str, int]] = {}
        for kind, status, n in rows:
            out.setdefault(str(kind), {})[str(status)] = int(n)
        return out
