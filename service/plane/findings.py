"""Findings of the consolidation plane, kept in the state database (`plane_findings`).

A finding is what one job noticed — a duplicate, a contradiction, a broken link — with the notes
it is about (and their etags when found) and, when something can be done, an action plan in the
plans language (`service.plans`): applying it is validating, previewing and executing that plan,
with the usual confirmation floors, journal and undo. Its `key` says what it is about, stably
across runs: a run that finds it again refreshes it, a dismissed one stays dismissed, and an open
one a later run of its job no longer finds is marked `gone`. Applying one first claims it (`claim`:
open → `applying` in one conditional UPDATE), so of concurrent callers only one runs its plan; the
claim ends `applied`, or back `open` when the plan did not complete (`release`); a claim a
process left when it was killed mid-apply is open again at the next start (`release_dead_claims`,
naming the plan run it left interrupted), or once it is `CLAIM_STALE_S` old. What one run recorded (`Recorded`)
keeps which findings it found, which were new and which it marked gone, so its counts can be
told over the findings one caller may read. Touches `plane_findings`; reads `plan_runs`.
"""

from __future__ import annotations

import difflib
import json
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from service.errors import ValidationFailed
from service.settings.plane import FINDING_KINDS
from service.storage import owners
from service.storage.db import Database
from service.storage.owners import Owner

Status = Literal["open", "applying", "dismissed", "applied", "gone"]
BATCH = 500  # findings read at a time when they are filtered for a caller
CLAIM_STALE_S = 3600.0  # a claim this old was left by a process that ended mid-apply: it can be taken again


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


Shown = Callable[[list[str]], bool]  # whether a finding about these notes is shown to a caller


def known_kind(kind: str) -> None:
    """`validation_error` for a kind no job reports (a job's name, `duplicates`, or a misspelling):
    a filter on it would find nothing and look like an answer."""
    if kind not in FINDING_KINDS:
        near = difflib.get_close_matches(kind, FINDING_KINDS, n=1, cutoff=0.6)
        raise ValidationFailed(
            f"no finding kind {kind!r}" + (f" (did you mean {near[0]!r}?)" if near else ""),
            details={"field": "kind", "kind": kind, "kinds": sorted(FINDING_KINDS)},
        )


@dataclass(slots=True)
class Recorded:
    """What one run recorded: its findings (with their ids), which of them were new (their places
    in `found`), and the open findings of its jobs it no longer found (each as its job and the
    notes it was about). Once the run ends, `pack` keeps only what counting them for one caller
    needs, in one string (`packed`)."""

    found: list[Finding] = field(default_factory=list)
    new: set[int] = field(default_factory=set)
    gone: list[tuple[str, list[str]]] = field(default_factory=list)
    packed: str | None = None

    def counts(self, shown: Shown | None = None) -> dict[str, int]:
        """New, found again and gone: all of them, or those `shown` admits."""
        found, gone = self._entries()
        seen = [is_new for is_new, _fid, _job, paths in found if shown is None or shown(paths)]
        new = sum(seen)
        told = sum(1 for _job, paths in gone if shown is None or shown(paths))
        return {"new": new, "again": len(seen) - new, "gone": told}

    def add(self, other: Recorded) -> None:
        """Take in what another record of the same run kept (its next job's)."""
        self.new |= {len(self.found) + place for place in other.new}
        self.found += other.found
        self.gone += other.gone

    def per_job(self, shown: Shown | None = None) -> dict[str, int]:
        """Findings by the job that found them: all of them, or those `shown` admits."""
        out: dict[str, int] = {}
        for _new, _fid, job, paths in self._entries()[0]:
            if shown is None or shown(paths):
                out[job] = out.get(job, 0) + 1
        return out

    def ids(self, shown: Shown | None = None) -> set[str]:
        """The ids of its findings: all of them, or of those `shown` admits."""
        return {fid for _new, fid, _job, paths in self._entries()[0] if shown is None or shown(paths)}

    def pack(self) -> None:
        """At the run's end: of each finding, keep only whether it was new, its id, its job and its
        paths, all in one string, and let go of the findings. A launched run's result is kept for
        its answer (`Plane.launched`, an MCP task's `tasks/result`); its findings, made job by job
        among the run's own short-lived objects, held Python's small-object arenas that the run
        had filled: 42 of 1 MiB at 10^5 notes, which no trim returns while one block is in use. One
        string that long is not in those arenas (docs/benchmarks.md, 2026-12-05)."""
        if self.packed is None:
            found = [[place in self.new, f.id, f.job, f.paths] for place, f in enumerate(self.found)]
            self.packed = json.dumps([found, self.gone])
            self.found, self.new, self.gone = [], set(), []

    def _entries(self) -> tuple[list[tuple[bool, str, str, list[str]]], list[tuple[str, list[str]]]]:
        if self.packed is None:
            return [(i in self.new, f.id, f.job, f.paths) for i, f in enumerate(self.found)], self.gone
        found, gone = json.loads(self.packed)
        return [(bool(a), str(b), str(c), list(d)) for a, b, c, d in found], [(str(j), list(p)) for j, p in gone]


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


async def still_open(state: Database, vault_id: str, job: str) -> list[Finding]:
    """`job`'s open findings as they were recorded, oldest first (a digest or summary no one kept yet)."""
    sql, params = _where(vault_id, status="open", job=job)
    rows = await state.fetchall(
        f"SELECT {_COLUMNS} FROM plane_findings WHERE {sql} ORDER BY found_at, id", tuple(params)
    )
    return [_row(r) for r in rows]


class FindingStore:
    def __init__(self, state: Database, owner: Owner) -> None:
        """`owner`: this server's (the plan runs' owner: `Journal.owner`), recorded with each claim."""
        self.state = state
        self.owner = owner

    async def record(
        self,
        vault_id: str,
        run_id: str,
        jobs: list[str],
        found: list[Finding],
        also: Callable[[sqlite3.Connection, Recorded], object] | None = None,
        spare: Mapping[str, Callable[[dict[str, Any]], bool]] | None = None,
    ) -> Recorded:
        """Keep what the run's `jobs` found: new findings open, known ones refreshed (a dismissed one
        stays dismissed), open ones of those jobs not found again `gone` — but those the run did not
        look at again (`spare`: kind -> true of such a finding's detail) stay open. `also` writes in
        the same transaction (the run's own record): findings are never kept without their run."""
        now = time.time()

        def work(conn: sqlite3.Connection) -> Recorded:
            recorded = Recorded(found=found)
            keys = set()
            for place, f in enumerate(found):
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
                    recorded.new.add(place)
                    continue
                f.id = str(row[0])
                status = row[1] if row[1] in ("dismissed", "applying") else "open"  # a claim is its applier's
                conn.execute(
                    "UPDATE plane_findings SET run_id=?, job=?, kind=?, title=?, detail=?, paths=?, etags=?, plan=?,"
                    " status=?, updated_at=? WHERE id=?",
                    (*values, status, now, f.id),
                )
            marks = ",".join("?" * len(jobs))
            if jobs:
                rows = conn.execute(
                    f"SELECT id, key, job, paths, kind, detail FROM plane_findings WHERE vault_id = ?"
                    f" AND status = 'open' AND job IN ({marks})",
                    (vault_id, *jobs),
                ).fetchall()
                for fid, key, job, paths, kind, detail in rows:
                    unseen = (spare or {}).get(str(kind))
                    if key not in keys and not (unseen is not None and unseen(json.loads(detail or "{}"))):
                        conn.execute("UPDATE plane_findings SET status='gone', updated_at=? WHERE id=?", (now, fid))
                        recorded.gone.append((str(job), json.loads(paths)))
            if also is not None:
                also(conn, recorded)
            return recorded

        return await self.state.run_write(work)  # the writer's thread lets go of it: no finding nor `spare` kept

    async def page(
        self,
        vault_id: str,
        *,
        status: str | None,
        kind: str | None,
        offset: int,
        limit: int,
        shown: Shown | None = None,
    ) -> tuple[list[Finding], int]:
        """A page of the findings matching and their total, oldest first: of all of them, or of
        those `shown` admits (filtered before the page is cut, `BATCH` rows read at a time)."""
        if shown is not None:
            page: list[Finding] = []
            total = 0
            async for f in self.scan(vault_id, status=status, kind=kind):
                if shown(f.paths):
                    if offset <= total < offset + limit:
                        page.append(f)
                    total += 1
            return page, total
        sql, params = _where(vault_id, status=status, kind=kind)
        rows = await self.state.fetchall(
            f"SELECT {_COLUMNS} FROM plane_findings WHERE {sql} ORDER BY found_at, id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        count = await self.state.fetchone(f"SELECT COUNT(*) FROM plane_findings WHERE {sql}", tuple(params))
        return [_row(r) for r in rows], int(count[0])

    async def scan(
        self,
        vault_id: str,
        *,
        status: str | None = None,
        kind: str | None = None,
        job: str | None = None,
        run_id: str | None = None,
    ) -> AsyncIterator[Finding]:
        """Every finding matching, oldest first, read `BATCH` rows at a time."""
        sql, params = _where(vault_id, status=status, kind=kind, job=job, run_id=run_id)
        after: tuple[float, str] | None = None
        while True:
            since = " AND (found_at, id) > (?, ?)" if after is not None else ""
            rows = await self.state.fetchall(
                f"SELECT {_COLUMNS} FROM plane_findings WHERE {sql}{since} ORDER BY found_at, id LIMIT ?",
                (*params, *(after or ()), BATCH),
            )
            for r in rows:
                yield _row(r)
            if len(rows) < BATCH:
                return
            after = (float(rows[-1][11]), str(rows[-1][0]))

    async def get(self, vault_id: str, finding_id: str) -> Finding | None:
        row = await self.state.fetchone(
            f"SELECT {_COLUMNS} FROM plane_findings WHERE vault_id = ? AND id = ?", (vault_id, finding_id)
        )
        return _row(row) if row is not None else None

    async def claim(self, vault_id: str, finding_id: str) -> bool:
        """Take an open finding to apply it (open → applying) in one conditional UPDATE: True for
        the one caller that got it, False for every other (it is not open, or another has it). A
        claim older than `CLAIM_STALE_S` (its process ended mid-apply) can be taken again."""
        now = time.time()
        owner = self.owner.id

        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "UPDATE plane_findings SET status = 'applying', updated_at = ?, claim_owner = ?"
                " WHERE vault_id = ? AND id = ? AND (status = 'open' OR (status = 'applying' AND updated_at < ?))",
                (now, owner, vault_id, finding_id, now - CLAIM_STALE_S),
            )
            return cursor.rowcount == 1

        return await self.state.run_write(work)

    async def release_dead_claims(self) -> list[str]:
        """At start-up, before any call of this process claims one: a finding still `applying`
        whose claimer's lock is not held (`service.storage.owners`; no claimer: a row from before
        owners) was claimed by a process that ended mid-apply (a kill, a crash); another live
        server's claim is left alone. Open again, each with the plan run its apply left
        `interrupted` (the journal's, when it has one: its goal, its vault, begun after the claim)
        in its detail as `interrupted_run_id`, for get_plan_run and undo_last_plan. Their ids."""
        now = time.time()
        folder = self.owner.folder

        def work(conn: sqlite3.Connection) -> list[str]:
            claimed = conn.execute(
                "SELECT id, vault_id, plan, updated_at, claim_owner FROM plane_findings WHERE status = 'applying'"
            ).fetchall()
            rows = [r[:4] for r in claimed if not owners.alive(folder, r[4])]
            for fid, vault_id, plan, claimed_at in rows:
                goal = (json.loads(plan) or {}).get("goal") if plan else None
                run = conn.execute(
                    "SELECT id FROM plan_runs WHERE vault_id = ? AND goal = ? AND started_at >= ?"
                    " AND status = 'interrupted' ORDER BY started_at LIMIT 1",
                    (vault_id, goal, claimed_at),
                ).fetchone()
                conn.execute(
                    "UPDATE plane_findings SET status = 'open', updated_at = ?,"
                    " detail = CASE WHEN ? IS NULL THEN detail ELSE json_set(detail, '$.interrupted_run_id', ?) END"
                    " WHERE id = ?",
                    (now, run and run[0], run and run[0], fid),
                )
            return [str(r[0]) for r in rows]

        return await self.state.run_write(work)

    async def release(self, finding_id: str) -> None:
        """A claimed finding whose plan did not complete is open again."""
        await self.state.run_write(
            lambda conn: conn.execute(
                "UPDATE plane_findings SET status = 'open', updated_at = ? WHERE id = ? AND status = 'applying'",
                (time.time(), finding_id),
            )
        )

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

    async def undone(
        self, vault_id: str, run_id: str, *, redone: bool = False, kept: frozenset[str] = frozenset()
    ) -> None:
        """The plan run `run_id` was undone: the findings it applied are open again (their notes
        are as they were found), but for one about a note in `kept` (a conflict the undo left as it
        was). `redone`: the undo of `run_id` was undone, so they are applied again (unless applied
        by another run meanwhile)."""
        before, after = ("open", "applied") if redone else ("applied", "open")

        def work(conn: sqlite3.Connection) -> None:
            rows = conn.execute(
                "SELECT id, paths FROM plane_findings WHERE vault_id = ? AND status = ?"
                " AND json_extract(detail, '$.applied_run_id') = ?",
                (vault_id, before, run_id),
            ).fetchall()
            for fid, paths in rows:
                if not kept.intersection(json.loads(paths)):
                    conn.execute(
                        "UPDATE plane_findings SET status = ?, updated_at = ? WHERE id = ?", (after, time.time(), fid)
                    )

        await self.state.run_write(work)

    async def counts(self, vault_id: str, shown: Shown | None = None) -> dict[str, dict[str, int]]:
        """Findings by kind and status: all of them, or those `shown` admits."""
        out: dict[str, dict[str, int]] = {}
        if shown is not None:
            async for f in self.scan(vault_id):
                if shown(f.paths):
                    by_status = out.setdefault(f.kind, {})
                    by_status[f.status] = by_status.get(f.status, 0) + 1
            return out
        rows = await self.state.fetchall(
            "SELECT kind, status, COUNT(*) FROM plane_findings WHERE vault_id = ? GROUP BY kind, status", (vault_id,)
        )
        for kind, status, n in rows:
            out.setdefault(str(kind), {})[str(status)] = int(n)
        return out

    async def of_run(self, vault_id: str, job: str, run_id: str, shown: Shown | None = None) -> int:
        """How many findings `job` reported at run `run_id` (a later run of the job takes them over):
        all of them, or those `shown` admits."""
        return sum([1 async for f in self.scan(vault_id, job=job, run_id=run_id) if shown is None or shown(f.paths)])


def _where(vault_id: str, **equal: str | None) -> tuple[str, list[str]]:
    """The WHERE clause (and its parameters) of a vault's findings whose columns equal the values
    given (None: any)."""
    where, params = ["vault_id = ?"], [vault_id]
    for column, value in equal.items():
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    return " AND ".join(where), params
