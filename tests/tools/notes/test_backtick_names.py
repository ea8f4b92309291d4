"""A new file or folder name with a backtick is refused (`path_invalid`, reason `reserved
character`), as names with Obsidian's link characters are: the link a move or rename writes to
`Y`z.md` pairs with another backtick of its line into inline code, so Obsidian shows no link there
and the index reads none. Before, `create_note C`x` and `move_note X -> Y`z` went through and
`see `code` and [[X]] here` became `see `code` and [[Y`z]] here`. A note already so named is read,
edited and moved under its own name; a memory entity named with a backtick is written `~60`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import snapshot, started

FILES = {"X.md": "# X\n", "Tick.md": "see `code` and [[X]] here\n", "Old`n.md": "# old\n"}


def _kept(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}


async def test_a_new_name_with_a_backtick_is_refused_and_nothing_changes(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        before = _kept(root)
        calls = [
            ("create_note", {"path": "C`x", "content": "x"}),
            ("write_note", {"path": "N/C`x.md", "content": "x", "mode": "create"}),
            ("create_folder", {"path": "F`o"}),
            ("create_note", {"path": "F`o/inner", "content": "x"}),
            ("copy_note", {"path": "X", "new_path": "X`2"}),
            ("move_note", {"path": "X", "new_path": "Y`z"}),
            ("rename_note", {"path": "X", "new_path": "Y`z"}),
        ]
        for tool, args in calls:
            error = await vg.err(tool, "path_invalid", **args)
            assert error["details"]["reason"] == "reserved character", (tool, error)
            assert "inline code" in error["hint"], (tool, error)
        assert _kept(root) == before
        assert vg.read("Tick.md") == "see `code` and [[X]] here\n"


async def test_a_note_already_named_with_a_backtick_keeps_working(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        assert (await vg.ok("read_note", path="Old`n.md"))["content"] == "# old\n"
        await vg.ok("append_note", path="Old`n.md", content="more\n")
        await vg.confirmed("move_note", path="Old`n.md", new_path="Archive/")
        assert vg.read("Archive/Old`n.md") == "# old\nmore\n"
        created = await vg.ok(
            "create_entities", entities=[{"name": "C`x", "entityType": "thing", "observations": ["seen"]}]
        )
        assert created["created"][0]["path"] == "Memory/C~60x.md"
        opened = await vg.ok("open_nodes", names=["C`x"])
        assert [e["path"] for e in opened["entities"]] == ["Memory/C~60x.md"]
