"""Merging two entities that are one keeps which of the merged entity's observations superseded
which: an out-of-date fact it knew stays out of date in the entity kept (it was made current again,
its supersession dropped with its old block id)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ZED = "---\nname: Zed\nentityType: person\n---\n# Zed\n\n## Observations\n- Plays go ^m-a\n"
ZEDS = (
    "---\nname: Zeds\nentityType: person\n---\n# Zeds\n\n## Observations\n"
    "- Works at Acme [date:: 2020-01-01] [superseded_by:: ^m-y] [valid_until:: 2023-01-01] ^m-x\n"
    "- Works at Globex [date:: 2023-01-01] ^m-y\n"
)


async def test_a_merge_keeps_the_merged_entitys_supersessions(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Zed.md": ZED, "Memory/Zeds.md": ZEDS})) as vg:
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        await vg.confirmed("apply_finding", finding_id=found["id"])
        [zed] = (await vg.ok("open_nodes", names=["Zed"]))["entities"]
        seen = {o["text"]: o for o in zed["observations"]}
        assert set(seen) == {"Plays go", "Works at Acme", "Works at Globex"}
        assert seen["Works at Acme"]["superseded_by"] == seen["Works at Globex"]["block_id"]
        assert seen["Works at Acme"]["valid_until"] == "2023-01-01"
        assert seen["Works at Globex"]["superseded_by"] is None
