"""Over real HTTP with the SDK client: two servers in one process (a program embedding vaultgate
twice), each with its own `[limits]`. The one with `max_rewrite_notes = 1` refuses a rename that
would rewrite two notes, the other makes it, whichever was built last (the last one built set
the limits of both: `service.budget.within`, tests/tools/test_limits_per_app.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

LINKED = {"Target.md": "# Target\n", "A.md": "see [[Target]]\n", "B.md": "also [[Target]]\n"}


@pytest.mark.parametrize("tight_first", [True, False], ids=["tight-built-first", "tight-built-last"])
async def test_two_servers_in_one_process_each_hold_their_own_rewrite_limit(
    make_vault: Callable[..., Path], tight_first: bool
) -> None:
    roots = {name: make_vault(LINKED, name=name) for name in ("tight", "loose")}
    limits = {"tight": {"max_rewrite_notes": 1}, "loose": {}}
    async with contextlib.AsyncExitStack() as stack:
        urls = {}
        for name in ("tight", "loose") if tight_first else ("loose", "tight"):
            url, harness = await stack.enter_async_context(e2e(roots[name], limits=limits[name]))
            await harness.indexed()
            urls[name] = url
        async with Client(urls["tight"]) as tight, Client(urls["loose"]) as loose:
            err = await error(tight, "rename_note", {"path": "Target", "new_path": "Goal"})
            assert err["code"] == "compute_budget_exceeded" and err["details"]["max_notes"] == 1, err
            assert (roots["tight"] / "Target.md").exists()
            await ok(loose, "rename_note", {"path": "Target", "new_path": "Goal"})
            assert (roots["loose"] / "A.md").read_text(encoding="utf-8") == "see [[Goal]]\n"
