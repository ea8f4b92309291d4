"""The maintenance sweep: a background task (default hourly, `maintenance.interval_seconds`).

Each run purges expired confirmation tokens/requests and idempotency keys, trims `event_log`
to `audit.retention_days`, deletes CloudEvents spool files older than `events.retention_days`
and session traces older than `sessions.retention_days`, has each vault's indexer merge its
full-text word index if writes left it in many segments (`service.storage.word_index`; in the
background, once calls pause), then runs `PRAGMA optimize`. It records
`vaultgate_maintenance_runs_total{status}` and emits its own audit event
(`dev.vaultgate.maintenance`). A failing run is logged and counted; the loop goes on. `stop()`
cancels the waiting loop at once (a run in progress finishes its current statement).
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.obs.audit import AuditSink
from service.obs.metrics import Metrics
from service.policy.confirmations import Confirmations
from service.policy.idempotency import IdempotencyStore
from service.settings import Settings
from service.storage.db import Database
from service.tasks import cancel_and_wait

if TYPE_CHECKING:
    from service.vault.vault import Vault

log = logging.getLogger(__name__)


class Maintenance:
    name = "maintenance"

    def __init__(
        self,
        settings: Settings,
        db: Database,
        vaults: dict[str, Vault],
        *,
        metrics: Metrics,
        confirmations: Confirmations,
        idempotency: IdempotencyStore,
        audit: AuditSink | None,
        spool_dir: Path,
    ) -> None:
        """`vaults` is the live map of served vaults (their session trace folders are swept)."""
        self.settings = settings
        self.db = db
        self.vaults = vaults
        self.metrics = metrics
        self.confirmations = confirmations
        self.idempotency = idempotency
        self.audit = audit
        self.spool_dir = spool_dir
        self._task: asyncio.Task[None] | None = None
        self.last_run: dict[str, Any] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="maintenance")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _loop(self) -> None:
        interval = self.settings.maintenance.interval_seconds
        while True:
            await asyncio.sleep(interval)
            await self.run_once()

    async def sweep_once(self, now: float | None = None) -> dict[str, Any]:
        """One sweep right now (tests, operators); `now` moves the retention clock."""
        return await self.run_once(now)

    async def run_once(self, now: float | None = None) -> dict[str, Any]:
        settings = self.settings
        metrics = self.metrics
        now = time.time() if now is None else now
        t0 = time.perf_counter()
        report: dict[str, Any] = {"at": now}
        try:
            report["confirmations_purged"] = await self.confirmations.purge(now)
            report["idempotency_keys_purged"] = await self.idempotency.purge(now)
            cutoff = now - settings.audit.retention_days * 86_400
            report["events_trimmed"] = await self.db.run_write(
                lambda c: int(c.execute("DELETE FROM event_log WHERE at < ?", (cutoff,)).rowcount or 0)
            )
            report["spool_files_deleted"] = await asyncio.to_thread(
                _delete_older, self.spool_dir, "*.jsonl", now - settings.events.retention_days * 86_400
            )
            traces = 0
            for vault in self.vaults.values():
                folder = vault.paths.root / settings.sessions.trace_folder
                traces += await asyncio.to_thread(
                    _delete_older, folder, "*.jsonl", now - settings.sessions.retention_days * 86_400
                )
            report["session_traces_deleted"] = traces
            ended_before = now - settings.sessions.retention_days * 86_400
            report["sessions_trimmed"] = await self.db.run_write(
                lambda c: int(
                    c.execute(
                        "DELETE FROM agent_sessions WHERE ended_at IS NOT NULL AND ended_at < ?", (ended_before,)
                    ).rowcount
                    or 0
                )
            )
            for vault in self.vaults.values():  # each index's own merge, once its calls pause
                if vault.index is not None:
                    vault.index.word_merge.ask()
            await self.db.run_write(lambda c: c.execute("PRAGMA optimize"))
            report["status"] = "ok"
        except Exception as exc:
            log.exception("maintenance sweep failed")
            report["status"] = "error"
            report["error"] = f"{type(exc).__name__}: {exc}"
        report["duration_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        metrics.maintenance_runs.labels(status=report["status"]).inc()
        audit = self.audit
        if audit is not None:
            audit.emit(
                {
                    "type": "maintenance",
                    "at": now,
                    "vault": None,
                    "tool": "maintenance",
                    "caller_hash": "system",
                    "transport": "inproc",
                    "status": report["status"],
                    "error_code": None if report["status"] == "ok" else "internal_error",
                    "args_hash": "",
                    "duration_ms": report["duration_ms"],
                    "correlation_id": "maintenance",
                    **{k: v for k, v in report.items() if k.endswith(("_purged", "_trimmed", "_deleted"))},
                }
            )
        self.last_run = report
        return report


def _delete_older(folder: Path, pattern: str, cutoff: float) -> int:
    if not folder.is_dir():
        return 0
    deleted = 0
    for path in folder.rglob(pattern):
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                path.unlink()
                deleted += 1
        except OSError:
            continue
    return deleted
