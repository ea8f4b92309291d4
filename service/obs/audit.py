"""The audit trail: one event per tool call, written off the call path.

The observe layer hands each call's event to `AuditSink.emit`, which only appends to a bounded
in-memory queue (never awaits, never raises): a full queue drops the event and counts it on
`vaultgate_observe_drops_total{sink="audit"}`. A background task drains the queue in batches:
- `event_log` rows (args_hash, never raw arguments), trimmed to `audit.retention_days` by the
  maintenance sweep;
- CloudEvents 1.0 JSON lines, one file per vault per UTC day, under `<cache>/events/<vault>/`;
- optionally the same batch POSTed as a JSON array to `events.push_url`.
Any sink failing drops that batch for that sink only and counts each of its events; calls are
unaffected.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import os
import uuid
from collections import deque
from pathlib import Path
from typing import Any

from service.obs.metrics import Metrics
from service.settings import AuditSettings, EventsSettings
from service.storage.db import Database
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)
BATCH = 500
FLUSH_DELAY = 0.25  # seconds
DAY_S = 86_400
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_LINE = json.JSONEncoder(ensure_ascii=False)  # json.dumps(..., ensure_ascii=False) makes one per call
_UUID_V4 = (0x4 << 76) | (0x2 << 62)  # version 4, RFC 4122 variant
_UUID_CLEAR = ~((0xF << 76) | (0x3 << 62))


class AuditSink:
    name = "audit"

    def __init__(
        self, db: Database, audit: AuditSettings, events: EventsSettings, spool_dir: Path, metrics: Metrics
    ) -> None:
        self.db = db
        self.audit = audit
        self.events = events
        self.spool_dir = spool_dir
        self.metrics = metrics
        self._queue: deque[dict[str, Any]] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._now = asyncio.Event()  # someone waits for the events written: no gathering pause

    def emit(self, event: dict[str, Any]) -> None:
        if len(self._queue) >= self.audit.queue_size:
            self.metrics.emit_drops.labels(sink="audit").inc()
            return
        self._queue.append(event)
        self._idle.clear()
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="audit-sink")

    async def stop(self) -> None:
        # Let the writer finish first: cancelling it mid-batch would lose the events it holds.
        with contextlib.suppress(TimeoutError):
            await self.drained(within=10.0)
        if self._task is not None:
            await cancel_and_wait(self._task)
        await self._flush()  # what is left, best effort

    async def drained(self, within: float = 30.0) -> None:
        """Wait (bounded) until every emitted event has been written (get_audit_log, shutdown,
        tests). The batch being gathered is written at once: the gathering pause is for busy
        servers, and waiting it out cost every stop and get_audit_log right after a call up to
        FLUSH_DELAY."""
        if not self._idle.is_set():
            self._now.set()
        await asyncio.wait_for(self._idle.wait(), within)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            # Gather a batch: one transaction and one file append per ~quarter second under load,
            # instead of one per call (which cost busy servers a third of their throughput).
            if len(self._queue) < BATCH and not self._now.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._now.wait(), FLUSH_DELAY)
            await self._flush()

    async def _flush(self) -> None:
        while self._queue:
            batch = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
            if self.audit.enabled:
                await self._guard("audit", self._write_rows(batch), len(batch))
            if self.events.spool:
                await self._guard("spool", asyncio.to_thread(self._spool, batch), len(batch))
            if self.events.push_url:
                await self._guard("push", self._push(batch), len(batch))
        self._now.clear()
        self._idle.set()

    async def _guard(self, sink: str, work: Any, events: int) -> None:
        try:
            await work
        except Exception:  # noqa: BLE001 - a sink failure drops its batch, never the call
            log.warning("audit sink %s failed; batch of %d dropped", sink, events, exc_info=True)
            self.metrics.emit_drops.labels(sink=sink).inc(events)  # counted per event, not per batch

    async def _write_rows(self, batch: list[dict[str, Any]]) -> None:
        rows = [
            (
                e["at"],
                e.get("vault"),
                e["tool"],
                e["caller_hash"],
                e["transport"],
                e["status"],
                e.get("error_code"),
                e["args_hash"],
                e["duration_ms"],
                e["correlation_id"],
                int(bool(e.get("confirmed"))),
                int(bool(e.get("replayed"))),
                e.get("overflow_bytes"),
                e.get("session_id"),
            )
            for e in batch
        ]
        await self.db.run_write(
            lambda c: c.executemany(
                "INSERT INTO event_log(at, vault_id, tool, caller_hash, transport, status, error_code, args_hash,"
                " duration_ms, correlation_id, confirmed, replayed, overflow_bytes, session_id)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
        )

    def _spool(self, batch: list[dict[str, Any]]) -> None:
        """The batch's CloudEvents lines appended to one file per vault and UTC day. Runs on a
        worker thread beside the calls, whose event loop waits for the interpreter while this
        holds it: the lines are those of `json.dumps(cloudevent(event), ensure_ascii=False)`,
        made with one encoder, one random read per batch and each file's path once per batch
        (~34 -> ~12 us an event on the 2-core machine of docs/benchmarks.md)."""
        files: dict[tuple[str, int], list[str]] = {}
        encode = _LINE.encode
        for event, event_id in zip(batch, _event_ids(len(batch)), strict=True):
            at = event["at"]
            day = int(at // DAY_S)  # the UTC day, as `datetime.fromtimestamp` rounds it:
            if at - day * DAY_S >= DAY_S - 1e-6:  # the last microsecond rounds up to the next day
                day = (dt.datetime.fromtimestamp(at, dt.UTC) - EPOCH).days
            key = (event.get("vault") or "_server", day)
            lines = files.get(key)
            if lines is None:
                lines = files[key] = []
            lines.append(encode(cloudevent(event, event_id)))
        for (vault, day), lines in files.items():
            path = self.spool_dir / vault / f"{(EPOCH + dt.timedelta(days=day)):%Y-%m-%d}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")

    async def _push(self, batch: list[dict[str, Any]]) -> None:
        import httpx2

        assert self.events.push_url is not None
        async with httpx2.AsyncClient(timeout=self.events.push_timeout_seconds) as http:
            response = await http.post(
                self.events.push_url,
                content=json.dumps([cloudevent(e) for e in batch]).encode(),
                headers={"content-type": "application/cloudevents-batch+json"},
            )
            response.raise_for_status()


def _event_ids(n: int) -> list[str]:
    """`n` random version-4 UUIDs as 32 hex digits (what `uuid.uuid4().hex` gives), from one
    read of the system's random source instead of one per event."""
    raw = os.urandom(16 * n)
    return [f"{int.from_bytes(raw[i : i + 16], 'big') & _UUID_CLEAR | _UUID_V4:032x}" for i in range(0, 16 * n, 16)]


def cloudevent(event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
    """A CloudEvents 1.0 structured-mode event for one tool call (`event_id`: a fresh id to use
    when the event carries none)."""
    kind = event.get("type", "tool.call")
    return {
        "specversion": "1.0",
        "id": event.get("id") or event_id or uuid.uuid4().hex,
        "source": f"vaultgate://{event.get('vault') or 'server'}",
        "type": f"dev.vaultgate.{kind}",
        "subject": event.get("tool"),
        "time": dt.datetime.fromtimestamp(event["at"], dt.UTC).isoformat().replace("+00:00", "Z"),
        "datacontenttype": "application/json",
        "data": {k: v for k, v in event.items() if k not in ("type", "id")},
    }
