"""list_notes and list_folders page with keyset cursors (the last item's sort key): notes or
folders created, deleted or moved between pages shift no later page, so every unchanged one is
listed exactly once, in every sort order (an offset cursor repeated or skipped some). A cursor
of the older offset form is a structured validation error."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NOTES = {f"Inbox/n{k:02d}.md": "x" * (k % 7 + 1) + "\n" for k in range(30)}


async def walk(vg: Harness, tool: str, change: Callable[[int], Any], **args: Any) -> list[str]:
    seen: list[str] = []
    cursor, page = None, 0
    while True:
        out = await vg.ok(tool, **args, **({"cursor": cursor} if cursor else {}))
        seen += [item["path"] for item in out["items"]]
        page += 1
        await change(page)
        cursor = out.get("next_cursor")
        if not cursor:
            return seen


@pytest.mark.parametrize(
    ("sort", "order", "glob"),
    [("path", "asc", None), ("path", "desc", None), ("path", "asc", "Inbox/*.md"), ("mtime", "asc", None),
     ("size", "desc", None)],
)  # fmt: skip
async def test_unchanged_notes_are_listed_once_while_notes_change(
    make_vault: Callable[..., Path], sort: str, order: str, glob: str | None
) -> None:
    root = make_vault(NOTES)
    for k, rel in enumerate(sorted(NOTES)):  # distinct mtimes, in path order
        os.utime(root / rel, (1_700_000_000 + k, 1_700_000_000 + k))
    async with started(root) as vg:

        async def change(page: int) -> None:
            if page == 1:  # notes sorting before and after the cursor, one deleted, one moved out
                for k in range(5):
                    await vg.ok("create_note", path=f"Inbox/000 new {k}.md", content="new")
                    await vg.ok("create_note", path=f"Inbox/zzz new {k}.md", content="new")
                (root / "Inbox/n01.md").unlink()  # by hand: the tools would ask a human first
                (root / "Elsewhere").mkdir()
                (root / "Inbox/n28.md").rename(root / "Elsewhere/n28.md")

        args: dict[str, Any] = {"folder": "Inbox", "limit": 4, "sort": sort, "order": order}
        if glob:
            args["glob"] = glob
        seen = await walk(vg, "list_notes", change, **args)
    unchanged = set(NOTES) - {"Inbox/n01.md", "Inbox/n28.md"}
    assert len(seen) == len(set(seen)), sorted({p for p in seen if seen.count(p) > 1})
    assert unchanged <= set(seen), sorted(unchanged - set(seen))


async def test_unchanged_folders_are_listed_once_while_folders_change(make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"F{k:02d}/n.md": "n\n" for k in range(12)})
    async with started(root) as vg:

        async def change(page: int) -> None:
            if page == 1:
                for k in range(3):
                    await vg.ok("create_note", path=f"A{k}/n.md", content="n")

        seen = await walk(vg, "list_folders", change, limit=3)
    assert len(seen) == len(set(seen))
    assert {f"F{k:02d}" for k in range(12)} <= set(seen)


async def test_an_offset_cursor_is_a_validation_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES)) as vg:
        state = {"o": 4, "q": "Inbox|None|True|path|asc"}
        old = base64.urlsafe_b64encode(json.dumps(state, separators=(",", ":")).encode()).decode().rstrip("=")
        err = await vg.err("list_notes", "validation_error", folder="Inbox", cursor=old)
        assert err["details"]["field"] == "cursor"
        await vg.err("list_notes", "validation_error", folder="Inbox", cursor="not a cursor")
        await vg.err("list_folders", "validation_error", cursor=old)
