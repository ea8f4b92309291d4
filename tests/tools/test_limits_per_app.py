"""`[limits]` belong to the app: two `VaultgateApp`s in one process (tests, an embedding host)
each enforce their own, whichever was built last.

The app used to make its `[limits]` the process's at build (`service.budget.configure`): the
second app built set them for the first too, so a move in an app with `max_rewrite_notes = 1`
rewrote as many notes as the other app allowed, and a note's frontmatter was read within the other
app's `max_frontmatter_values`. The app's limits now reach their users as values (a vault's
`limits`: its files' `max_note_bytes`, a move's plan clock, the parse workers) or, for the readers
deep inside (frontmatter, the index cap, a regular expression's time), as the app's for the code
it runs (`budget.within`: the dispatcher around each call, the app around its background work).
Each test builds both apps in both orders, so neither is "the last one built" for both."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service import budget
from tests.conftest import Harness, started

TIGHT = {"max_rewrite_notes": 1, "max_frontmatter_values": 1000, "max_note_bytes": 10_000}
LINKED = {"Target.md": "# Target\n", "A.md": "see [[Target]]\n", "B.md": "also [[Target]]\n"}
MANY = "---\nitems: [" + ", ".join(str(i) for i in range(1500)) + "]\n---\n# Many values\n"  # 1,500 > 1,000
LONG = "# Long\n\n" + "plain words\n" * 1200  # 14,408 bytes > 10,000


@contextlib.asynccontextmanager
async def two_apps(make_vault: Callable[..., Path], tight_first: bool) -> AsyncIterator[tuple[Harness, Harness]]:
    files = {**LINKED, "Long.md": LONG}
    roots = {name: make_vault(files, name=name) for name in ("tight", "loose")}
    limits: dict[str, dict[str, Any]] = {"tight": TIGHT, "loose": {}}
    order = ("tight", "loose") if tight_first else ("loose", "tight")
    async with contextlib.AsyncExitStack() as stack:
        apps = {
            name: await stack.enter_async_context(started(roots[name], limits=limits[name], index={"watch": False}))
            for name in order
        }
        yield apps["tight"], apps["loose"]


@pytest.mark.parametrize("tight_first", [True, False], ids=["tight-built-first", "tight-built-last"])
async def test_each_app_refuses_a_move_past_its_own_max_rewrite_notes(
    make_vault: Callable[..., Path], tight_first: bool
) -> None:
    async with two_apps(make_vault, tight_first) as (tight, loose):
        for vg in (tight, loose):
            await vg.indexed(60)
        error = await tight.err("rename_note", "compute_budget_exceeded", path="Target", new_path="Goal")
        assert error["details"]["limit"] == "notes" and error["details"]["max_notes"] == 1, error
        assert (tight.root / "Target.md").exists() and tight.read("A.md") == LINKED["A.md"]
        await loose.ok("rename_note", path="Target", new_path="Goal")
        assert loose.read("A.md") == "see [[Goal]]\n" and loose.read("B.md") == "also [[Goal]]\n"


@pytest.mark.parametrize("tight_first", [True, False], ids=["tight-built-first", "tight-built-last"])
async def test_each_app_reads_frontmatter_and_long_notes_within_its_own_limits(
    make_vault: Callable[..., Path], tight_first: bool
) -> None:
    async with two_apps(make_vault, tight_first) as (tight, loose):
        for vg in (tight, loose):  # written once both apps run: read now, by the call, within its app's limits
            (vg.root / "Many.md").write_text(MANY, encoding="utf-8")
        refused = await tight.ok("read_note", path="Many")
        assert refused["properties"] == {} and refused["frontmatter_error"], refused
        read = await loose.ok("read_note", path="Many")
        assert len(read["properties"]["items"]) == 1500 and read["frontmatter_error"] is None
        error = await tight.err("read_note", "compute_budget_exceeded", path="Long")
        assert error["details"]["limit"] == "note_bytes", error
        assert (await loose.ok("read_note", path="Long"))["content"] == LONG
        assert all(budget.configured() is not vg.app.settings.limits for vg in (tight, loose))  # not the process's
