"""E2E (SDK client over real HTTP) for `[limits] max_note_bytes`: a note over it is refused, before
it is read, by a tool that edits it whole (append_note), with a structured compute_budget_exceeded
naming the note, its size and the setting; a note under it is edited as before, and the long note
itself (no link in it) is still renamed. The dispatch-chain cases: tests/tools/notes/test_note_size_bound.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text\n" for i in range(400))  # ~9 KB, no link


async def test_a_note_over_the_bound_is_refused_whole_and_still_renamed(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Long.md": LONG, "Short.md": "# Short\n"})
    async with e2e(root, limits={"max_note_bytes": LIMIT}) as (url, _), Client(url) as client:
        err = await error(client, "append_note", path="Long", content="more")
        assert err["code"] == "compute_budget_exceeded", err
        assert err["details"] == {
            "path": "Long.md",
            "size": len(LONG.encode()),
            "limit": "note_bytes",
            "max_note_bytes": LIMIT,
        }, err
        assert "max_note_bytes" in err["hint"], err
        assert (root / "Long.md").read_text(encoding="utf-8") == LONG
        await ok(client, "append_note", path="Short", content="more")
        await ok(client, "rename_note", path="Long", new_path="Longer")
        assert (root / "Longer.md").read_text(encoding="utf-8") == LONG
