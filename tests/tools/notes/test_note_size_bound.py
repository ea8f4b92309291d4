"""A note over `[limits] max_note_bytes` is refused, before it is read, by every tool that reads,
returns or edits its whole text (`service.vault.notesize`): `compute_budget_exceeded` (limit
note_bytes) naming the note, its size and the limit. A 600 MB note cost ~2x its size in memory for
each such call (append_note: 35 s, 2.49 GB peak; get_outline 112 s; read_note of 3 lines read it
all, S1 s85 #4). Deleting, moving and renaming it still work (no text needed); a move whose link
rewrite would have to edit it is refused naming it, never done without that rewrite; one that
cannot touch it (its file, scanned a chunk at a time, mentions no moved name) passes it by."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

LIMIT = 4096
BIG = "---\ntitle: big\n---\n# Big\n\nsee [[A]]\n\n## Tail\n" + "".join(f"line {i} of filler\n" for i in range(400))
LOG = "# Log\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # no '['
FILES = {"Big.md": BIG, "Log.md": LOG, "A.md": "# A\n", "Zed.md": "# Zed\n", "Small.md": "# Small\n\nsee [[A]]\n"}
# both long notes past the index's cap too: every move reads them (their links are not all in the index)
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}


def _refused(error: dict[str, Any], path: str = "Big.md", text: str = BIG) -> None:
    details = error["details"]
    assert details["path"] == path and details["limit"] == "note_bytes", error
    assert details["max_note_bytes"] == LIMIT and details["size"] == len(text.encode()) > LIMIT, error
    assert "max_note_bytes" in error["hint"], error


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_note", {"path": "Big"}),
    ("read_note", {"path": "Big", "start_line": 1, "end_line": 3}),
    ("read_note", {"path": "Big#Tail"}),
    ("note_info", {"path": "Big"}),
    ("get_outline", {"path": "Big"}),
    ("append_note", {"path": "Big", "content": "more"}),
    ("prepend_note", {"path": "Big", "content": "more"}),
    ("replace_text", {"path": "Big", "find": "filler", "replace": "x"}),
    ("set_properties", {"path": "Big", "properties": {"k": "v"}}),
]


async def test_whole_note_tools_refuse_a_note_over_the_bound(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, limits=LIMITS) as vg:
        await vg.indexed(60)
        for tool, args in CALLS:
            _refused(await vg.err(tool, "compute_budget_exceeded", **args))
        assert (root / "Big.md").read_text(encoding="utf-8") == BIG  # nothing changed
        item = (await vg.ok("read_notes", paths=["Big", "Small"]))["items"]
        assert item[0]["error"]["code"] == "compute_budget_exceeded" and item[1]["content"] == FILES["Small.md"]
        assert (await vg.ok("read_note", path="Small"))["content"] == FILES["Small.md"]  # under it: as before
        await vg.ok("append_note", path="Small", content="more")

        # a move or rewrite whose link rewrite must edit Big is refused, naming it; nothing changed
        _refused(await vg.err("rename_note", "compute_budget_exceeded", path="A", new_path="A2"))
        _refused(await vg.err("rewrite_links", "compute_budget_exceeded", old_target="A", new_target="Zed"))
        _refused(await vg.err("rename_note", "compute_budget_exceeded", path="Big", new_path="Big2"))  # its links
        assert (root / "A.md").exists() and not (root / "A2.md").exists() and not (root / "Big2.md").exists()
        assert (root / "Small.md").read_text(encoding="utf-8").startswith("# Small\n\nsee [[A]]\n")
        # one that cannot touch Big (no mention of Zed in it) goes through, Big and Log unread
        await vg.ok("rename_note", path="Zed", new_path="Zed2")

        # a long note with no link in it: moved, renamed and deleted as any note, but not read
        _refused(await vg.err("read_note", "compute_budget_exceeded", path="Log"), "Log.md", LOG)
        await vg.ok("rename_note", path="Log", new_path="Log2")
        await vg.confirmed("move_note", path="Log2", new_path="Sub/Log2.md")
        assert (root / "Sub/Log2.md").read_text(encoding="utf-8") == LOG
        await vg.ok("delete_note", path="Sub/Log2.md")
        assert (root / "Big.md").read_text(encoding="utf-8") == BIG
        await vg.ok("delete_note", path="Big")
        assert not (root / "Sub/Log2.md").exists() and not (root / "Big.md").exists()


@pytest.mark.parametrize("limit", [len(BIG.encode())])
async def test_a_note_of_the_bound_is_read(make_vault: Callable[..., Path], limit: int) -> None:
    root = make_vault(FILES)
    async with started(root, limits={"max_note_bytes": limit}) as vg:
        assert (await vg.ok("read_note", path="Big"))["content"] == BIG
        await vg.ok("append_note", path="Big", content="more")
