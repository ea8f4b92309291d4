"""A write made through vaultgate while the first index is still being built is applied by that
reconcile (between its batches, or just before it is ready: `service/indexer/early.py`). Once
ready, the writer's note is in the index with its links, and the test harness's `settled()`
waits for that too (before, it returned at once and a read right after could miss the note: a
fresh-clone run saw get_outlinks answer [] for a note created at the start)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import service.indexer.reconcile as reconcile
from tests.conftest import started


async def test_a_note_written_during_the_first_index_is_indexed_once_settled(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    scan = reconcile.scan_with_paths

    def slow_scan(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.0)  # the first reconcile holds the apply lock while the writes arrive
        return scan(*args, **kwargs)

    monkeypatch.setattr(reconcile, "scan_with_paths", slow_scan)
    async with started(make_vault()) as vg:
        assert not vg.indexer().ready  # the writes really come during the first index (both at once:
        # an in-process write waits for its index update, applied between the load's batches now)
        await asyncio.gather(
            vg.ok("create_note", path="Guide", content="# Guide\n\n## Setup\n\ntext\n"),
            vg.ok("create_note", path="Index", content="[[Guide#Setup]] [[Guide]]\n"),
        )
        await vg.settled()
        outlinks = await vg.ok("get_outlinks", path="Index")
        assert [(link["path"], link["subpath"]) for link in outlinks["items"]] == [
            ("Guide.md", "Setup"),
            ("Guide.md", None),
        ]
        backlinks = await vg.ok("get_backlinks", path="Guide")
        assert [item["path"] for item in backlinks["items"]] == ["Index.md", "Index.md"]  # one per link
