"""The memory's name lookup (an entity whose note is not named so: renamed in its frontmatter or
in Obsidian) never reads the memory folder's notes through a folder swapped for a link to outside
the vault after the call checked the path (`service.memory.lookup`, the folder opened as
`service.vault.dirfd` opens folders and its notes read relative to it). Before, each note was
opened by its absolute path after its check: the outside note of that file name was read and its
entity name taken for the note's."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.memory import lookup
from tests.conftest import started


async def test_a_memory_folder_swapped_for_a_link_before_a_note_is_read_is_not_read_through(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Memory/Renamed.md": "---\nname: Ann\n---\n# Ann\n", "Home.md": "# Home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Renamed.md").write_text("---\nname: Zed\n---\n# Zed\n", encoding="utf-8")
    read_head = lookup._head

    def swapped_before_the_read(fd: int, name: str) -> str:
        if not (root / "Memory").is_symlink():  # the swap lands just before the note is read
            os.rename(root / "Memory", tmp_path / "Memory.kept")
            os.symlink(outside, root / "Memory")
        return read_head(fd, name)

    async with started(root, index={"watch": False}) as vg:
        with monkeypatch.context() as patched:
            patched.setattr(lookup, "_head", swapped_before_the_read)
            answer = await vg.call("open_nodes", names=["Zed"])
        assert (root / "Memory").is_symlink()  # the lookup did read after the swap
        known = vg.app.services.memory_writes.names._known
        assert [entity for _mtime, _size, entity, *_ in known.values()] == ["Ann"], known  # the note's own name
        assert "Renamed" not in str(answer.structured)  # no note found for Zed
        os.unlink(root / "Memory")
        os.rename(tmp_path / "Memory.kept", root / "Memory")
        assert (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["name"] == "Ann"  # found by its `name`
