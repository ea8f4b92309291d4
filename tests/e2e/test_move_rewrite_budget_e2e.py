"""Over real HTTP with the SDK client (G1 s86, S1 s85 finding 5): a move whose link rewrite of one
note outlasts `[limits] max_eval_seconds` answers `compute_budget_exceeded` naming the note, before
any confirmation is asked, and changes nothing. The budget is a microsecond, so the rewrite's look
at the clock after `CLOCK_EVERY` links always finds it spent: nothing is timed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.graph.rewrite import CLOCK_EVERY
from tests.conftest import e2e
from tests.e2e.calls import error


async def test_a_move_past_its_rewrite_budget_is_a_structured_refusal(make_vault: Callable[..., Path]) -> None:
    many = "".join(f"t{i} [[Hub]]\n" for i in range(CLOCK_EVERY + 10))
    root = make_vault({"Hub.md": "# H\n", "Many.md": many})
    async with e2e(root, limits={"max_eval_seconds": 0.000001}) as (url, harness), Client(url) as client:
        await harness.indexed()
        for tool, args in (
            ("move_note", {"path": "Hub.md", "new_path": "Archive/Hub2.md"}),  # the confirmation's preview
            ("rename_note", {"path": "Hub.md", "new_path": "Hub2", "dry_run": True}),
        ):
            err = await error(client, tool, args)
            assert err["code"] == "compute_budget_exceeded", err
            assert (err["details"]["path"], err["details"]["limit"]) == ("Many.md", "seconds")
            assert "max_eval_seconds" in err["hint"]
    assert (root / "Hub.md").exists() and not (root / "Archive").exists()
    assert (root / "Many.md").read_text() == many
