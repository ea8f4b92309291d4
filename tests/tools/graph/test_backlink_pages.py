"""get_backlinks pages a hub's backlinks in SQL (unrestricted callers) and through the full list
(restricted ones): both page through exactly the backlinks the caller may see, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

WITHIN = 30.0

HUB = {
    "Hub.md": "# Hub\n",
    **{f"A/Note {i:02d}.md": f"# {i}\n\nSee [[Hub]].\n\nAnd [[Hub]] again.\n" for i in range(17)},
    **{f"Private/P {i}.md": f"# P{i}\n\n[[Hub]]\n" for i in range(4)},
}


async def pages(vg: Harness, limit: int) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    args: dict[str, Any] = {"path": "Hub", "limit": limit}
    while True:
        out = await vg.ok("get_backlinks", **args)
        seen += [(i["path"], i["line"]) for i in out["items"]]
        if not out["next_cursor"]:
            return seen
        args["cursor"] = out["next_cursor"]


async def test_pages_cut_in_sql_hold_every_backlink_in_order(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(HUB)) as vg:
        await vg.indexed()
        every = await pages(vg, 500)
        assert len(every) == 17 * 2 + 4 and every == sorted(every)
        for limit in (1, 5, 7, 38, 39):
            assert await pages(vg, limit) == every
        (vg.root / "A/Note 03.md").unlink()  # gone from disk, perhaps not yet from the index
        (vg.root / "A/Note 04.md").unlink()
        want = [e for e in every if e[0] not in ("A/Note 03.md", "A/Note 04.md")]
        got = await pages(vg, 5)  # before the index has caught up: no gone file is shown
        assert set(got) <= set(want)
        await vg.settled()  # (the test's own writes: none here; the watcher's reading comes by itself)
        for _ in range(int(WITHIN / 0.02)):  # until the watcher's deletions are in the index
            if await pages(vg, 500) == want:
                break
            await asyncio.sleep(0.02)
        assert await pages(vg, 5) == want  # and the pages cut in SQL hold exactly them


async def test_a_restricted_caller_pages_only_what_it_may_read(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
    async with started(make_vault(HUB), acl=acl) as vg:
        await vg.indexed()
        seen = await pages(vg, 6)
        assert len(seen) == 34 and not [p for p, _ in seen if p.startswith("Private/")]
