"""A burst of saves by another program reaches the index in a few batches, not one per file
(the watch's step, `watch.STEP_MS`, is shorter than it was: files written one after another
still arrive together). Waits are on bus events, bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from service.vault.events import FileChange
from tests.conftest import started

NOTES = 30


async def test_a_burst_of_saves_is_applied_in_a_few_batches(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Hub.md": "# Hub\n"})
    async with started(root) as vg:
        await vg.indexed()
        batches: list[list[str]] = []
        seen: set[str] = set()
        every = asyncio.Event()

        async def listener(changes: Sequence[FileChange]) -> None:
            batches.append([c.path for c in changes])
            seen.update(c.path for c in changes)
            if len({p for p in seen if p.startswith("Burst/")}) == NOTES:
                every.set()

        vg.app.vaults["main"].bus.subscribe(listener)
        (root / "Burst").mkdir()
        for i in range(NOTES):  # one program saving many notes at once (a sync, a git checkout)
            (root / "Burst" / f"n{i}.md").write_text(f"# n{i}\n\nburstword{i}\n", encoding="utf-8")
        await asyncio.wait_for(every.wait(), 60)
        assert len(batches) <= NOTES // 3
        found = await vg.ok("search_text", query="burstword7")
        assert [i["path"] for i in found["items"]] == ["Burst/n7.md"]
