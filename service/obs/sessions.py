"""Workspace sessions: which caller has one open in which vault, and their JSONL traces.

`start_session` opens a session for (caller, vault); until `end_session`, every call that
caller makes in that vault — success or failure — carries the session id (`event_log.session_id`)
and its audit event is mirrored as one JSON line into the session's trace file in the vault's
trace folder (`sessions.trace_folder`, ACL-checked for writing when the session starts;
trimmed to `sessions.retention_days` by the maintenance sweep). Binding by caller rather than by
MCP transport session makes the trace work the same over stdio, stateless HTTP and in-process.
Guarantees: `mirror()` only appends to a bounded queue (never awaits, never raises); a
background task writes the lines, and a failed write drops them and counts
`vaultgate_observe_drops_total{sink="trace"}`. Open sessions survive a restart (agent_sessions).
Several servers on one data folder share `agent_sessions`: `current` (start_session and
end_session) and `seen` (the observe layer, once per call: one indexed point read on the loop)
adopt a session another server opened and forget one it ended, so each call's audit row and trace
line follow the shared state from the very next call; `claim` opens a row only where the caller
has none open, so two starts at once open one session. The trace writer still checks each batch's
sessions are open (`_still_open`): a call that was running when another server ended the session
is written only if it started before the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.obs.metrics import Metrics
from service.storage.db import Database, DbError
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)
QUEUE_LIMIT = 10_000
STAMP_LIMIT = 65_536  # bytes of `sessions.stamp` (one a start or end) before it starts afresh
# The caller's open session: through `agent_sessions_by_end` (the open rows only, a few).
_OPEN_SQL = (
    "SELECT id, name, trace_path, started_at, calls FROM agent_sessions"
    " WHERE caller = ? AND vault_id = ? AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1"
)


def caller_hash(subject: str) -> str:
    """What is stored and logged for a caller (as in event_log): never the subject itself."""
    return hashlib.sha256(subject.encode()).hexdigest()[:16]


@dataclass
class Session:
    id: str
    vault_id: str
    caller: str  # caller_hash of the subject
    name: str
    trace_rel: str
    trace_file: Path
    started_at: float
    calls: int = 0


class SessionTraces:
    name = "sessions"

    def __init__(self, db: Database, metrics: Metrics, roots: dict[str, Path]) -> None:
        self.db = db
        self.metrics = metrics
        self.roots = roots  # vault id -> vault root, to find trace files of sessions left open
        self._open: dict[tuple[str, str], Session] = {}
        # `seen`: the stamp every start and end on this data folder touches, and the callers whose
        # registry entry answers for the stamp as last seen.
        self.stamp = db.path.with_name("sessions.stamp")
        self._stamp_seen: tuple[int, int, int] | None = None
        self._settled: set[tuple[str, str]] = set()
        self._queue: deque[tuple[Session, dict[str, Any]]] = deque()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None

    # -- registry ----------------------------------------------------------------------------

    def active(self, caller: str, vault_id: str) -> Session | None:
        """The caller's open session as this process's registry holds it (no read)."""
        return self._open.get((caller, vault_id))

    def seen(self, caller: str, vault_id: str) -> Session | None:
        """The caller's open session as `agent_sessions` holds it now, for the call being recorded,
        so a session another server opened or ended counts from this server's very next call. The
        shared state is read once per call as the stamp's `os.stat` (~1 us): only when a start or
        end anywhere changed it since the caller's last answer is the row read (one indexed
        `Database.point_read` on the loop, 8-40 us). Should the database be busy, the registry
        answers (`active`)."""
        key = (caller, vault_id)
        stamp = self._stamp_key()
        if stamp is None or stamp != self._stamp_seen:
            self._settled.clear()
            self._stamp_seen = stamp
        elif key in self._settled:
            return self._open.get(key)
        try:
            row = self.db.point_read(_OPEN_SQL, key)
        except DbError:
            return self.active(caller, vault_id)
        found = self._align(caller, vault_id, row, self._exists)
        if stamp is not None and (found is None or self._open.get(key) is found):
            self._settled.add(key)  # none open, or adopted: a session whose trace has no header is read again
        return self._open.get(key)

    def _stamp_key(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.stamp)
        except FileNotFoundError:
            return (0, 0, 0)  # no start or end has written it yet
        except OSError:
            return None  # not known: the row is read
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _touch(self) -> None:
        """Tell every server on this data folder that a session started or ended: one byte appended
        (the size grows at each change; a new file, so a new inode, past `STAMP_LIMIT`). After the
        row's change, so a server that sees the new stamp reads the new row."""
        full = False
        try:
            with contextlib.suppress(FileNotFoundError):
                full = os.stat(self.stamp).st_size >= STAMP_LIMIT
            if full:
                tmp = self.stamp.with_name(f"{self.stamp.name}.{os.getpid()}.tmp")
                tmp.write_bytes(b"\n")
                os.replace(tmp, self.stamp)
                return
            fd = os.open(self.stamp, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, b"\n")
            finally:
                os.close(fd)
        except OSError:  # the other servers see the change at their next start/end or restart
            log.warning("session stamp %s not written", self.stamp, exc_info=True)

    async def current(self, caller: str, vault_id: str) -> Session | None:
        """The caller's open session in the vault as `agent_sessions` holds it, this process's
        registry brought in line first: another server on the same data folder may have opened
        it (adopted: traced here too) or ended it (forgotten: no longer traced here)."""
        row = await self.db.fetchone(_OPEN_SQL, (caller, vault_id))
        known = self._align(caller, vault_id, row, None)
        if known is not None and self._open.get((caller, vault_id)) is not known:
            return await self._adopt(known)
        return known

    def _align(self, caller: str, vault_id: str, row: Any, exists: Callable[[Session], bool] | None) -> Session | None:
        """The registry brought in line with the caller's open row (None: none open). A session not
        yet known here is adopted once `exists` says its trace has its header (None: not asked)."""
        key, root = (caller, vault_id), self.roots.get(vault_id)
        known = self._open.get(key)
        if row is None or root is None:
            self._open.pop(key, None)
            return None
        if known is not None and known.id == str(row[0]):
            return known
        self._open.pop(key, None)
        found = Session(str(row[0]), vault_id, caller, str(row[1]), str(row[2]), root / str(row[2]), float(row[3]))
        found.calls = int(row[4])
        if exists is not None and exists(found):
            self._open[key] = found
        return found

    async def _adopt(self, session: Session) -> Session:
        if await asyncio.to_thread(self._exists, session):
            self._open.setdefault((session.caller, session.vault_id), session)
        return session

    @staticmethod
    def _exists(session: Session) -> bool:
        # Adopted once its start wrote the trace's header: a line traced before would make the file
        # (the start's create-only write would then fail).
        return session.trace_file.exists()

    async def claim(self, session: Session) -> bool:
        """Insert the session's row unless the caller has one open in the vault: one statement, so
        of two starts at once (in this process or another on the same data folder) exactly one
        claims it. Not traced until `register`: its trace file is not written yet."""

        def insert(c: sqlite3.Connection) -> bool:
            cur = c.execute(
                "INSERT INTO agent_sessions(id, vault_id, caller, name, trace_path, started_at)"
                " SELECT ?,?,?,?,?,? WHERE NOT EXISTS (SELECT 1 FROM agent_sessions"
                " WHERE caller = ? AND vault_id = ? AND ended_at IS NULL)",
                (session.id, session.vault_id, session.caller, session.name, session.trace_rel, session.started_at)
                + (session.caller, session.vault_id),
            )
            return bool(cur.rowcount == 1)

        claimed: bool = await self.db.run_write(insert)
        return claimed

    async def unclaim(self, session: Session) -> None:
        """Drop a claimed row whose trace file could not be written (the start failed)."""
        await self.db.run_write(lambda c: c.execute("DELETE FROM agent_sessions WHERE id = ?", (session.id,)))

    def register(self, session: Session) -> None:
        """Trace the caller's calls into the claimed session (its trace file now starts with its header).
        A call that ended meanwhile may have adopted it already (`seen`): its count carries over."""
        adopted = self._open.get((session.caller, session.vault_id))
        if adopted is not None and adopted.id == session.id and adopted is not session:
            session.calls += adopted.calls
        self._open[(session.caller, session.vault_id)] = session
        self._touch()

    async def close(self, session: Session) -> float:
        """End a session: its last lines are written before the row is closed."""
        self._open.pop((session.caller, session.vault_id), None)
        await self.drained()
        ended = time.time()
        await self.db.run_write(
            lambda c: c.execute(
                "UPDATE agent_sessions SET ended_at = ?, calls = ? WHERE id = ?", (ended, session.calls, session.id)
            )
        )
        self._touch()
        return ended

    # -- mirroring ---------------------------------------------------------------------------

    def mirror(self, session: Session, event: dict[str, Any]) -> None:
        session.calls += 1
        if len(self._queue) >= QUEUE_LIMIT:
            self.metrics.emit_drops.labels(sink="trace").inc()
            return
        self._queue.append((session, event))
        self._idle.clear()
        self._wake.set()

    async def drained(self, within: float = 30.0) -> None:
        """Wait (bounded) until every mirrored line has been written."""
        await asyncio.wait_for(self._idle.wait(), within)

    async def start(self) -> None:
        rows = await self.db.fetchall(
            "SELECT id, vault_id, caller, name, trace_path, started_at, calls FROM agent_sessions"
            " WHERE ended_at IS NULL"
        )
        for r in rows:
            root = self.roots.get(str(r[1]))
            if root is not None:
                s = Session(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), root / str(r[4]), float(r[5]))
                s.calls = int(r[6])
                self._open[(s.caller, s.vault_id)] = s
        self._task = asyncio.create_task(self._run(), name="session-traces")

    async def stop(self) -> None:
        # Let the writer finish first: cancelling it mid-batch would lose the lines it holds.
        with contextlib.suppress(TimeoutError):
            await self.drained(within=10.0)
        if self._task is not None:
            await cancel_and_wait(self._task)
        await self._flush()
        sessions = list(self._open.values())
        with contextlib.suppress(Exception):  # call counts are informative; never block shutdown
            await self.db.run_write(
                lambda c: c.executemany(
                    # not one another server ended (its count is the one end_session gave)
                    "UPDATE agent_sessions SET calls = ? WHERE id = ? AND ended_at IS NULL",
                    [(s.calls, s.id) for s in sessions],
                )
            )

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._flush()

    async def _flush(self) -> None:
        while self._queue:
            batch = await self._still_open([self._queue.popleft() for _ in range(len(self._queue))])
            try:
                await asyncio.to_thread(_append, batch)
            except Exception:  # a trace failure drops its lines, never the call
                log.warning("session trace write failed; %d lines dropped", len(batch), exc_info=True)
                self.metrics.emit_drops.labels(sink="trace").inc()
        self._idle.set()

    async def _still_open(self, batch: list[tuple[Session, dict[str, Any]]]) -> list[tuple[Session, dict[str, Any]]]:
        """The batch's lines, without those of calls made after their session ended through another
        server (one query per batch, off the call path); such a session is forgotten here."""
        ids = list({session.id for session, _ in batch})
        try:
            marks = ",".join("?" * len(ids))
            rows = await self.db.fetchall(
                f"SELECT id, ended_at FROM agent_sessions WHERE ended_at IS NOT NULL AND id IN ({marks})", tuple(ids)
            )
        except Exception:  # noqa: BLE001 - the check never costs a line
            log.debug("session trace: ended sessions not checked", exc_info=True)
            return batch
        ended = {str(row[0]): float(row[1]) for row in rows}
        if not ended:
            return batch
        for session, _ in batch:
            key = (session.caller, session.vault_id)
            if session.id in ended and self._open.get(key) is session:  # another server ended it
                self._open.pop(key)
        return [
            (session, event)
            for session, event in batch
            if session.id not in ended or not isinstance(at := event.get("at"), int | float) or at <= ended[session.id]
        ]


def _append(batch: list[tuple[Session, dict[str, Any]]]) -> None:
    files: dict[Path, list[str]] = {}
    for session, event in batch:
        files.setdefault(session.trace_file, []).append(json.dumps(event, ensure_ascii=False, default=str))
    for path, lines in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
