"""An index update that fails — the cache disk full, the database file unwritable — is reported by
index_status and brought in once it can be. Before, a failed update (a write's round, a batch of
the watcher's) was logged and dropped: index_status answered healthy, backlog 0, error null, the
note stayed missing from search until the server restarted, even after the disk had room again
(found with the cache on an 8 MB tmpfs filled up: 201 new notes, none indexed, 'healthy')."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import catch_up
from tests.conftest import Harness, started

UPDATES = {"service.indexer.apply", "service.indexer.runner"}  # the writes of notes' rows (update, reconcile)


async def until(vg: Harness, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """index_status once `check` holds for it (bounded: 60 s)."""
    for _ in range(600):
        status = await vg.ok("index_status")
        if check(status):
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"index_status never got there: {status}")


async def test_a_failed_index_update_is_reported_and_caught_up(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catch_up, "FIRST_PAUSE_S", 0.05)
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as vg:
        await vg.indexed()
        db = vg.app.db
        real = db.run_write
        full = True

        async def run_write(fn: Any, *args: Any, **kwargs: Any) -> Any:
            inner = fn
            while hasattr(inner, "func"):  # a functools.partial's function
                inner = inner.func
            if full and getattr(inner, "__module__", "") in UPDATES:
                raise sqlite3.OperationalError("database or disk is full")
            return await real(fn, *args, **kwargs)

        monkeypatch.setattr(db, "run_write", run_write)
        await vg.ok("create_note", path="Fresh.md", content="# Fresh\n\nzebracorn\n")  # the file is written
        (root / "Outside.md").write_text("# Outside\n\nzebracorn too\n", encoding="utf-8")  # the watcher's batch
        status = await until(vg, lambda s: s["backlog"] >= 1 and s["error"] is not None)
        assert status["health"] == "degraded" and "database or disk is full" in status["error"]
        assert (await vg.ok("search_text", query="zebracorn"))["items"] == []
        [vault_state] = (await vg.ok("server_health"))["vaults"]
        assert vault_state["backlog"] >= 1
        full = False
        status = await until(vg, lambda s: s["health"] == "healthy")
        assert (status["backlog"], status["error"], status["notes"]) == (0, None, 3)
        found = await vg.ok("search_text", query="zebracorn")
        assert sorted(item["path"] for item in found["items"]) == ["Fresh.md", "Outside.md"]
