"""E2E (SDK client over real HTTP, a human approving through its client): undo_last_plan of a plan
that created a note over `[limits] max_note_bytes` takes it to the trash without reading it
(journaled as a move with its stamp, `service.vault.restore.set_aside`), and undoing that undo
brings it back from the trash. The dispatch-chain cases:
tests/tools/sessions/test_undo_of_a_long_note_written.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import answering
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text\n" for i in range(400))  # ~9 KB, no link
PLAN = {
    "goal": "a long draft",
    "steps": [{"id": "w", "tool": "write_note", "args": {"path": "Draft", "content": LONG, "mode": "create"}}],
}


async def test_a_long_note_a_plan_created_is_undone_to_the_trash_unread_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Short.md": "# Short\n"})
    async with (
        e2e(root, limits={"max_note_bytes": LIMIT}, index={"watch": False}) as (url, _),
        Client(url, mode=mode, elicitation_callback=answering("accept", [])) as client,  # type: ignore[arg-type]
    ):
        run = await ok(client, "execute_plan", plan=PLAN)
        assert run["status"] == "done" and (root / "Draft.md").read_text(encoding="utf-8") == LONG
        reads = spy(monkeypatch)
        out = await ok(client, "undo_last_plan")
        assert out["conflicts"] == [] and out["restored"] == ["Draft.md"], out
        trashed = [p for p in root.rglob("*.md") if p.name.startswith("Draft")]
        assert [p.relative_to(root).parts[0] for p in trashed] == [".trash"], trashed
        assert trashed[0].read_text(encoding="utf-8") == LONG and "Draft.md" not in reads, reads
        await ok(client, "undo_last_plan", run_id=out["undo_run_id"])  # the redo: back from the trash
        assert (root / "Draft.md").read_text(encoding="utf-8") == LONG and not trashed[0].exists()
        assert "Draft.md" not in reads, reads
