"""E2E (SDK client over real HTTP): a bundle holding a note over `[limits] max_note_bytes` lists it
in `refused`, with read_note's structured compute_budget_exceeded (path, size, limit "note_bytes",
max_note_bytes), and packs the other notes, in bundle_files and bundle_folder alike; the note is
never read whole. The dispatch-chain cases: tests/tools/bundles/test_bundles_note_size_bound.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text\n" for i in range(400))  # ~9 KB


async def test_a_bundle_lists_a_note_over_the_bound_as_refused_and_packs_the_rest(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Notes/Long.md": LONG, "Notes/Short.md": "# Short\n\nkept\n"})
    details = {"path": "Notes/Long.md", "size": len(LONG.encode()), "limit": "note_bytes", "max_note_bytes": LIMIT}
    refused = {"code": "compute_budget_exceeded", "details": details}
    async with e2e(root, limits={"max_note_bytes": LIMIT}) as (url, _), Client(url) as client:
        files = await ok(client, "bundle_files", paths=["Notes/Long", "Notes/Short", "Nope"])
        assert [e["path"] for e in files["entries"]] == ["Notes/Short.md"] and files["missing"] == ["Nope"]
        [item] = files["refused"]
        assert item["address"] == "Notes/Long" and item["path"] == "Notes/Long.md", item
        assert {k: item["error"][k] for k in refused} == refused, item
        folder = await ok(client, "bundle_folder", folder="Notes")
        assert [e["path"] for e in folder["entries"]] == ["Notes/Short.md"]
        assert [(r["path"], r["error"]["code"]) for r in folder["refused"]] == [
            ("Notes/Long.md", "compute_budget_exceeded")
        ]
        assert folder["manifest"]["remaining"] == 0 and folder["next_cursor"] is None
