"""Plan runs and their journal, kept in the state database (`0009_plans.sql`).

Why the state database: the index (cache folder) may be deleted and rebuilt from the vault at
any time, but a journal holds the only copy of what a plan overwrote or deleted; the state
database (data folder) keeps the audit log and confirmations for the same reason.

`Journal.recorder(run_id)` is the `ChangeRecorder` a runner sets around each step
(`service.vault.journal.RECORDER`): every change is appended to the run's spool file
(`service.plans.spool`: one `write` in the worker thread that then performs the change, no
extra hop off the event loop, no database transaction) before the file layer performs it, so a
process killed mid-step leaves a journal that names every file it may have touched. When the run
closes, its spool becomes `plan_journal` rows in the transaction that closes the run (one
transaction per run instead of one per change). A run is recorded as `running` first; at
start-up, runs still `running` belong to a process that died and become `interrupted`, their
spool files imported the same way (their journal stays undoable); a run another live server
sharing the data folder opened is its own (`service.storage.owners`: its owner's lock is held) and
is left alone, its spool file too. Any writer of many files can
share this journal: `recording(kind="bulk", ...)` around its commit (`kind` 'bulk' is the
all-or-nothing tool calls', `bulk_create_notes`, `move_note`, `rename_note`: see
`service.plans.recovery.journaled`) makes it undoable the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from service.plans import spool
from service.storage import owners
from service.storage.db import Database
from service.vault.journal import RECORDER, PriorState

RunStatus = str  # running | done | failed | cancelled | interrupted
KEEP_IN_MEMORY = 4 << 20  # prior bytes of a run's records also kept in memory until it closes


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    step_id: str
    kind: str
    path: str
    dst: str | None
    prior: bytes | None
    new_etag: str | None


@dataclass(frozen=True, slots=True)
class RunRow:
    id: str
    vault_id: str
    caller: str
    kind: str
    goal: str
    plan_hash: str
    status: str
    undoes: str | None
    undone_by: str | None
    steps_total: int
    steps_done: int
    outcome: list[dict[str, Any]]
    started_at: float
    ended_at: float | None


_RUN_COLUMNS = (
    "id, vault_id, caller, kind, goal, plan_hash, status, undoes, undone_by, steps_total, steps_done, outcome, "
    "started_at, ended_at"
)


def _run(row: Any) -> RunRow:
    values = list(row)
    values[11] = json.loads(values[11]) if values[11] else []
    return RunRow(*values)


_INSERT = (
    "INSERT OR IGNORE INTO plan_journal(run_id, seq, step_id, kind, path, dst, prior, new_etag, at) "
    "VALUES (?,?,?,?,?,?,?,?,?)"
)
_CLOSE = "UPDATE plan_runs SET status = ?, outcome = ?, steps_done = ?, ended_at = ? WHERE id = ?"
_OPEN = (
    "INSERT INTO plan_runs(id, vault_id, caller, kind, goal, plan_hash, status, undoes, steps_total, "
    "started_at, owner) VALUES (?,?,?,?,?,?, 'running', ?,?,?,?)"
)
# A run not undone: no undo run, or one that did not end (killed: interrupted; failed) and restored nothing.
_NOT_UNDONE = (
    "(undone_by IS NULL OR undone_by IN (SELECT u.id FROM plan_runs u WHERE u.status IN ('interrupted', 'failed')))"
)


class Recorder:
    """Appends each change of one run to its spool file before it happens. The runner sets one
    `for_step` view per call (calls of one run may be in flight together); they share the run's
    sequence numbers, taken under a lock together with the record's write, so `seq` is the order
    in which the changes were recorded (each one right before it happens, in the thread making it)."""

    def __init__(self, journal: Journal, run_id: str, seq: int = 0) -> None:
        self.journal = journal
        self.run_id = run_id
        self.step_id = ""
        self.seq = seq
        self.changes = 0
        self._fd: int | None = None
        self._closed = False
        self.abandoned = False  # closed by a stop while its change still ran (`Journal.close`)
        self._lock = threading.Lock()
        # The records also kept here while they stay small, so closing the run inserts them
        # without reading the spool back (None: too large, the spool is read).
        self.rows: list[spool.Row] | None = []
        self._kept = 0

    def record(self, change: PriorState, /) -> None:
        self.write(self.step_id, change)

    def stopping(self) -> bool:
        # A run whose journal a stop closed under it (past the drain) stays stopped after the
        # journal is reopened for a new start: it can record nothing more.
        return self.abandoned or self.journal.stopping

    def for_step(self, step_id: str) -> StepRecorder:
        return StepRecorder(self, step_id)

    def write(self, step_id: str, change: PriorState) -> None:
        """One record in the spool, in the OS before this returns (worker thread: `ChangeRecorder.record`)."""
        with self._lock:
            if self._closed:
                raise RuntimeError(f"plan run {self.run_id} is closed: its journal takes no more changes")
            if self._fd is None:
                self._fd = spool.open_spool(self.journal.spool_path(self.run_id))
            at = time.time()
            spool.write_all(self._fd, spool.encode(self.seq + 1, step_id, change, at))
            self.seq += 1
            self.changes += 1
            if self.rows is not None:
                self._kept += len(change.prior or b"")
                if self._kept > KEEP_IN_MEMORY:
                    self.rows = None
                else:
                    self.rows.append(
                        (self.seq, step_id, change.kind, change.rel, change.dst, change.prior, change.new_etag, at)
                    )

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


class StepRecorder:
    """The recorder of one call of a run (its step id), writing through the run's `Recorder`."""

    def __init__(self, run: Recorder, step_id: str) -> None:
        self.run = run
        self.step_id = step_id

    def record(self, change: PriorState, /) -> None:
        self.run.write(self.step_id, change)

    def stopping(self) -> bool:
        return self.run.stopping()


def _import(conn: sqlite3.Connection, run_id: str, path: Path, rows: list[spool.Row] | None = None) -> bool:
    """Move a spool file's records (`rows`: the same records, already in memory) into
    `plan_journal`, in the caller's transaction; False when there is no such file."""
    if rows is None:
        try:
            rows = list(spool.read_records(path.read_bytes()))
        except FileNotFoundError:
            return False
    conn.executemany(_INSERT, [(run_id, *row) for row in spool.settled(rows)])
    return True


class Journal:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.spool = db.path.parent / "plan-spool"  # spool files of running runs
        self.owner = owners.Owner(db.path.parent / "plan-owners")  # this server's runs and their held lock
        self._recovered = False
        self._recorders: dict[str, Recorder] = {}  # this process's open runs
        self._abandoned: set[str] = set()  # runs a stop closed under a running change (`close`)
        self.stopping = False  # the server is stopping: running changes stop and roll back
        self._closing = 0  # runs whose `close_run` is writing their end
        self._run_closed = asyncio.Event()  # set as each `close_run` ends (what `drained` waits on)

    def spool_path(self, run_id: str) -> Path:
        return self.spool / f"{run_id}{spool.SUFFIX}"

    async def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        """One statement in its own transaction, in one hop to the database's writer."""
        await self.db.run_write(lambda conn: conn.execute(sql, params))

    def request_stop(self) -> None:
        """The server begins to stop: every journaled change stops at its next action and rolls
        back (`service.vault.commit`); `drained` waits for them."""
        self.stopping = True

    async def drained(self, within: float) -> bool:
        """Wait until this process has no open run, at most `within` seconds; False when some
        are still open then (their runs stay `running`: the next start rolls them back)."""
        with anyio.move_on_after(within):
            while self._recorders or self._closing:
                self._run_closed.clear()
                await self._run_closed.wait()
        return not (self._recorders or self._closing)

    def close(self) -> None:
        """Close the runs still open (changes that outlived the drain): their runs stay `running`
        until the next start imports them, and their changes stay stopped (`Recorder.stopping`)
        and leave their runs as they are when they end (`close_run`)."""
        for recorder in self._recorders.values():
            recorder.abandoned = True
            recorder.close()
        self._abandoned.update(self._recorders)
        self.owner.release()  # the runs left open are a dead owner's to the next start

    def reopen(self) -> None:
        """Ready for a start after `close` (the same app object started again): not stopping, and
        the runs the stop left open are, as a dead process's, made `interrupted` by the next
        `recover` (a bulk one is then rolled back), their closed recorders forgotten."""
        self.stopping = False
        self._recovered = False
        self._recorders.clear()

    async def open_run(
        self, vault_id: str, caller: str, *, kind: str, goal: str, plan_hash: str, total: int, undoes: str | None = None
    ) -> str:
        await self.recover()
        run_id = uuid.uuid4().hex
        row = (run_id, vault_id, caller, kind, goal[:1000], plan_hash, undoes, total, time.time(), self.owner.id)
        await self._write(_OPEN, row)
        return run_id

    async def claim_rollback(self, row: RunRow, caller: str, goal: str) -> str | None:
        """Open the undo run that rolls back the interrupted run `row` and name it in `row`'s
        `undone_by`, in one transaction, unless another server claimed `row` since it was read
        (two starts after a crash: only one rolls it back); the undo run's id, or None. The undo
        run is then written under `recording(..., opened=...)`."""
        return await self._claim(row, caller, goal, "", "status = 'interrupted' AND undone_by IS ?", (row.undone_by,))

    async def claim_undo(self, row: RunRow, caller: str, goal: str) -> str | None:
        """`claim_rollback` for undo_last_plan: a finished run not undone (nor claimed by an undo
        that was killed or failed), so two callers (or two servers) undoing it at once undo it once."""
        return await self._claim(row, caller, goal, row.plan_hash, f"status != 'running' AND {_NOT_UNDONE}", ())

    async def _claim(
        self, row: RunRow, caller: str, goal: str, plan_hash: str, where: str, params: tuple[Any, ...]
    ) -> str | None:
        await self.recover()
        undo_id = uuid.uuid4().hex
        opened = (undo_id, row.vault_id, caller, "undo", goal[:1000], plan_hash, row.id, 1, time.time(), self.owner.id)

        def work(conn: sqlite3.Connection) -> bool:
            sql = f"UPDATE plan_runs SET undone_by = ? WHERE id = ? AND {where}"  # noqa: S608 - constant clauses
            if conn.execute(sql, (undo_id, row.id, *params)).rowcount != 1:
                return False
            conn.execute(_OPEN, opened)
            return True

        return undo_id if await self.db.run_write(work) else None

    async def release_claim(self, run_id: str, undo_id: str) -> None:
        """A claim's undo run failed (all or nothing: nothing restored): `run_id` is to be rolled
        back (undone) again."""
        await self._write("UPDATE plan_runs SET undone_by = NULL WHERE id = ? AND undone_by = ?", (run_id, undo_id))

    def recorder(self, run_id: str) -> Recorder:
        recorder = self._recorders.get(run_id)
        if recorder is None:
            recorder = self._recorders[run_id] = Recorder(self, run_id)
        return recorder

    @contextlib.asynccontextmanager
    async def recording(
        self,
        vault_id: str,
        caller: str,
        *,
        kind: str,
        goal: str,
        plan_hash: str = "",
        undoes: str | None = None,
        opened: str | None = None,
    ) -> AsyncIterator[str]:
        """One journaled change of many files as a run of its own (an undo; `bulk_create_notes`):
        every file change inside the block is journaled; the run ends `done`, or `failed` when
        the block raises. Yields the run id (`opened`: a run opened already, `claim_rollback`)."""
        run_id = opened or await self.open_run(
            vault_id, caller, kind=kind, goal=goal, plan_hash=plan_hash, total=1, undoes=undoes
        )
        recorder = self.recorder(run_id)
        recorder.step_id = kind
        token = RECORDER.set(recorder)
        # The whole step shape `get_plan_run` answers (`calls`: the files changed).
        step = {"id": kind, "tool": kind, "status": "ok", "calls": 0, "failed_calls": 0, "errors": []}
        try:
            yield run_id
        except BaseException as exc:
            RECORDER.reset(token)
            code = str(getattr(exc, "code", "") or type(exc).__name__)
            failed = {**step, "status": "failed", "calls": recorder.changes, "failed_calls": 1}
            failed["errors"] = [{"code": code, "message": str(exc)[:300]}]
            with anyio.CancelScope(shield=True):
                await self.close_run(run_id, "failed", [failed], 0)
            raise
        RECORDER.reset(token)
        await self.close_run(run_id, "done", [{**step, "calls": recorder.changes}], 1)

    async def progress(self, run_id: str, done: int, total: int) -> None:
        await self._write("UPDATE plan_runs SET steps_done = ?, steps_total = ? WHERE id = ?", (done, total, run_id))

    async def checkpoint(self, run_id: str, done: int, total: int, outcome: list[dict[str, Any]]) -> None:
        """A running run's calls and step outcomes so far: what `get_plan_run` reports of it if
        its process dies before `close_run` (it is then `interrupted`)."""
        await self._write(
            "UPDATE plan_runs SET steps_done = ?, steps_total = ?, outcome = ? WHERE id = ? AND status = 'running'",
            (done, total, json.dumps(outcome, ensure_ascii=False), run_id),
        )

    async def close_run(self, run_id: str, status: RunStatus, outcome: list[dict[str, Any]], done: int) -> None:
        """End the run: its spool's records become `plan_journal` rows in the transaction that
        sets its status; then the spool file goes. A run a stop closed under its change is left
        to the next start's recovery (which may have rolled it back already)."""
        if run_id in self._abandoned:
            return
        recorder = self._recorders.pop(run_id, None)
        self._closing += 1
        try:
            await self._close_run(run_id, recorder, status, outcome, done)
        finally:
            self._closing -= 1
            self._run_closed.set()

    async def _close_run(
        self, run_id: str, recorder: Recorder | None, status: RunStatus, outcome: list[dict[str, Any]], done: int
    ) -> None:
        if recorder is not None:
            recorder.close()
        path = self.spool_path(run_id)
        spooled = recorder is None or recorder.changes > 0  # a run of another process: look
        rows = recorder.rows if recorder is not None else None
        params = (status, json.dumps(outcome, ensure_ascii=False), done, time.time(), run_id)

        def work(conn: sqlite3.Connection) -> bool:
            found = spooled and _import(conn, run_id, path, rows)
            conn.execute(_CLOSE, params)
            return found

        if await self.db.run_write(work):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # imported: a leftover would only be imported again (no duplicates)

    async def undone(self, row: RunRow) -> bool:
        """`row` is undone: its `undone_by` names an undo run that is running or done (one killed
        or failed restored nothing in the end: `_NOT_UNDONE`)."""
        undo = await self.run(row.undone_by) if row.undone_by is not None else None
        return row.undone_by is not None and (undo is None or undo.status not in ("interrupted", "failed"))

    async def recover(self) -> None:
        """Runs still `running` when this process first touches the journal died with their
        process, unless their owner still lives (another server on this data folder)."""
        if self._recovered:
            return
        self._recovered = True
        now = time.time()
        folder = self.owner.folder

        def work(conn: sqlite3.Connection) -> list[Path]:
            # One transaction, before any run of this process is opened: every spool file here is
            # a dead process's, a live server's running run's (left alone), or an imported one
            # whose removal did not happen.
            running = conn.execute("SELECT id, owner FROM plan_runs WHERE status = 'running'").fetchall()
            live = owners.live_owners(folder)
            dead = [(now, run_id) for run_id, owner in running if owner not in live]
            conn.executemany("UPDATE plan_runs SET status = 'interrupted', ended_at = ? WHERE id = ?", dead)
            gone: list[Path] = []
            for run_id, path in spool.spool_files(self.spool).items():
                row = conn.execute("SELECT status, owner FROM plan_runs WHERE id = ?", (run_id,)).fetchone()
                if row is not None and row[0] == "running" and row[1] in live:
                    continue  # a live server's run: it imports its spool when it closes
                if row is not None:
                    _import(conn, run_id, path)
                gone.append(path)
            return gone

        for path in await self.db.run_write(work):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # imported, or the spool of a run pruned meanwhile

    async def interrupted(self, *, kind: str) -> list[RunRow]:
        """Runs of `kind` a dead process left (`interrupted`) and nobody undid yet, oldest first:
        not undone, or claimed by a rollback that did not end (`claim_rollback`: its process died
        in it, or it failed), which the caller rolls back first (newest first)."""
        rows = await self.db.fetchall(
            f"SELECT {_RUN_COLUMNS} FROM plan_runs WHERE kind = ? AND status = 'interrupted' AND {_NOT_UNDONE} "
            "ORDER BY started_at, rowid",
            (kind,),
        )
        return [_run(row) for row in rows]

    async def run(self, run_id: str) -> RunRow | None:
        row = await self.db.fetchone(f"SELECT {_RUN_COLUMNS} FROM plan_runs WHERE id = ?", (run_id,))
        return _run(row) if row is not None else None

    async def last_undoable(self, vault_id: str, caller: str) -> RunRow | None:
        """The caller's newest finished run in the vault that changed files and is not undone yet
        (a failed undo is none: it is all or nothing, its restores were put back)."""
        await self.recover()
        row = await self.db.fetchone(
            f"SELECT {_RUN_COLUMNS} FROM plan_runs r WHERE vault_id = ? AND caller = ? AND status != 'running' "
            f"AND NOT (kind = 'undo' AND status = 'failed') AND {_NOT_UNDONE} "
            "AND EXISTS (SELECT 1 FROM plan_journal j WHERE j.run_id = r.id) "
            "ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (vault_id, caller),
        )
        return _run(row) if row is not None else None

    async def runs_of(self, caller: str, *, kind: str = "plan", limit: int = 50, offset: int = 0) -> list[RunRow]:
        """The caller's runs of `kind`, newest first (MCP tasks/list)."""
        rows = await self.db.fetchall(
            f"SELECT {_RUN_COLUMNS} FROM plan_runs WHERE caller = ? AND kind = ? "
            "ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?",
            (caller, kind, limit, offset),
        )
        return [_run(row) for row in rows]

    async def entries(self, run_id: str) -> list[Entry]:
        rows = await self.db.fetchall(
            "SELECT seq, step_id, kind, path, dst, prior, new_etag FROM plan_journal WHERE run_id = ? ORDER BY seq",
            (run_id,),
        )
        return [Entry(*row) for row in rows]
