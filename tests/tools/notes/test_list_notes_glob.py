"""list_notes' `glob` is a pattern the caller writes: it runs on the interruptible regex engine
(wcmatch's own matcher backtracks for minutes on `**/a/**/a/...` against a deep path, on the
event loop) and a pattern that expands too far is a validation error, not an internal one."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

DEEP = "/".join(["a"] * 40) + "/b.md"


async def test_a_backtracking_glob_answers_at_once(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({DEEP: "deep\n", "Projects/Plan.md": "plan\n"})) as vg:
        started_at = time.process_time()  # CPU, not the wall clock: a loaded machine stretches that
        out = await vg.ok("list_notes", glob="**/a/" * 12 + "c")
        assert out["items"] == [] and time.process_time() - started_at < 5
        deep = await vg.ok("list_notes", glob="**/a/a/b.md")
        assert [i["path"] for i in deep["items"]] == [DEEP]
        plan = await vg.ok("list_notes", glob="projects/*.md")
        assert [i["path"] for i in plan["items"]] == ["Projects/Plan.md"]


async def test_a_brace_bomb_is_a_validation_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "a\n"})) as vg:
        err = await vg.err("list_notes", "validation_error", glob="{a,b}" * 20)
        assert err["details"]["field"] == "glob"
