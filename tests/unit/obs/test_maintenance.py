"""The maintenance sweep purges expired policy state, trims the audit log and old spool files."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_one_sweep_purges_trims_and_reports(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        await vg.err("delete_note", "elicit_required", path="A", permanent=True)
        await vg.ok("append_note", path="A", content="x\n", idempotency_key="k")
        await vg.app.audit.drained()
        old_spool = vg.app.settings.data_dir() / "events" / "main" / "2000-01-01.jsonl"
        old_spool.parent.mkdir(parents=True, exist_ok=True)
        old_spool.write_text("{}\n")
        os.utime(old_spool, (1, 1))
        future = time.time() + 40 * 86_400  # past every retention
        report = await vg.app.maintenance.run_once(now=future)
        assert report["status"] == "ok"
        assert report["confirmations_purged"] >= 1 and report["idempotency_keys_purged"] == 1
        assert report["events_trimmed"] >= 2 and report["spool_files_deleted"] >= 1
        assert not old_spool.exists()
        assert 'vaultgate_maintenance_runs_total{status="ok"} 1.0' in vg.app.metrics.render().decode()
        await vg.app.audit.drained()
        row = await vg.app.services.state.fetchone("SELECT tool, status FROM event_log WHERE tool = 'maintenance'")
        assert tuple(row) == ("maintenance", "ok")


async def test_the_sweep_stops_cleanly(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"}), maintenance={"interval_seconds": 3600}) as vg:
        task = vg.app.maintenance._task
        assert task is not None and not task.done()
    assert task.done()
