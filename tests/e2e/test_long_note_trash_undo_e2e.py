"""E2E (SDK client over real HTTP, a human approving through its client): a plan deletes a note over
`[limits] max_note_bytes` to the trash without reading it (journaled as a move with its stat stamp),
undo_last_plan brings it back from the trash unread; the same plan deleting it for good is refused
by validate_plan and by execute_plan before anything is written (compute_budget_exceeded). The
dispatch-chain cases: tests/tools/sessions/test_delete_long_note_in_plans.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_bridge_confirm_e2e import answering
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text\n" for i in range(400))  # ~9 KB, no link


def _plan(permanent: bool) -> dict[str, Any]:
    args: dict[str, Any] = {"path": "Long", "permanent": permanent}
    return {"goal": "drop the long note", "steps": [{"id": "rm", "tool": "delete_note", "args": args}]}


async def test_a_long_note_trashed_by_a_plan_is_undone_unread_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Long.md": LONG, "Short.md": "# Short\n"})
    asked: list[str] = []
    async with (
        e2e(root, limits={"max_note_bytes": LIMIT}, index={"watch": False}) as (url, _),
        Client(url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
    ):
        reads = spy(monkeypatch)
        checked = await ok(client, "validate_plan", plan=_plan(permanent=True))
        [problem] = checked["problems"]
        assert problem["code"] == "compute_budget_exceeded", problem
        assert problem["details"] == {
            "path": "Long.md",
            "size": len(LONG),
            "limit": "note_bytes",
            "max_note_bytes": LIMIT,
        }
        err = await error(client, "execute_plan", plan=_plan(permanent=True))
        assert err["code"] == "validation_error" and "compute_budget_exceeded" in str(err), err
        assert (root / "Long.md").read_text(encoding="utf-8") == LONG and not (root / ".trash").exists()

        run = await ok(client, "execute_plan", plan=_plan(permanent=False))
        assert run["status"] == "done", run
        assert (root / ".trash/Long.md").read_text(encoding="utf-8") == LONG and not (root / "Long.md").exists()
        out = await ok(client, "undo_last_plan")
        assert out["conflicts"] == [] and out["restored"] == ["Long.md", ".trash"] and asked, (
            out
        )  # the trash it made too
        assert (root / "Long.md").read_text(encoding="utf-8") == LONG and not (root / ".trash").exists()
        assert not [r for r in reads if r.endswith("Long.md")], reads
