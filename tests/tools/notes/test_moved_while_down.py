"""Notes moved while the server was down keep their index rows at the next start.

The start's reconcile saw each moved note as a note gone (its rows deleted) and a new file
(read, parsed and stored again): a restart after moving a folder of 249 notes of the 10k
workload parsed all 249 (M8, s74). Now a note the index holds that is gone from disk and a new
file of its name and content hash keep the note's rows (its id: chunks and vectors stay), given
the new path, its links resolved from there (`relocate.py`), as a move through vaultgate does.
The oracle: after the restart, every table of the index by path equals a fresh index of a copy
of the vault (`test_move_keeps_rows._dump`). Not paired, and parsed as before: a note renamed
(its title changes), a note edited in its move, a note written again at its old path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.indexer import parsepool
from tests.conftest import started, write_files
from tests.semantic.helpers import model_ready
from tests.tools.notes.test_move_keeps_rows import EMBEDDINGS, VAULT, _fresh, _ids, _now, _same

MORE = {
    "Projects/Alpha/Renamed.md": "# Renamed\n\nIts name changes: parsed again.\n",
    "Projects/Alpha/Edited.md": "# Edited\n\nIts text changes in the move.\n",
    "Projects/Alpha/Twin.md": "# Twin\n\nSame text twice.\n",
    "Projects/Beta/Twin.md": "# Twin\n\nSame text twice.\n",
    "Projects/Beta/Back.md": "# Back\n\nA new note comes back at its old path.\n",
    "Loose.md": "# Loose\n\nSee [[Projects/Alpha/Renamed]] and [[Projects/Beta/Twin]].\n",
}


async def test_a_restart_after_moves_made_while_down_keeps_the_moved_notes_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    write_files(vault, {**VAULT, **MORE})
    cache = {"cache_dir": tmp_path / "cache"}
    await model_ready()
    async with started(vault, index={"watch": False}, embeddings=EMBEDDINGS, storage=cache) as vg:
        await _now(vg)
        ids = await _ids(vg)

    (vault / "Archive").mkdir()
    (vault / "Projects/Alpha").rename(vault / "Archive/Alpha")  # a folder's move
    (vault / "Projects/Beta").rename(vault / "Projects/Gamma")  # a folder's rename
    (vault / "Archive/Alpha/Renamed.md").rename(vault / "Archive/Alpha/Now named.md")
    edited = vault / "Archive/Alpha/Edited.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "More.\n", encoding="utf-8")
    (vault / "Projects/Beta").mkdir()
    (vault / "Projects/Beta/Back.md").write_text("# Back\n\nA new note comes back at its old path.\n", "utf-8")
    kept = [f"Archive/Alpha/{n}" for n in ("Plan.md", "Spec.md", "Notes/Deep.md", "Board.canvas", "Changed.md")]

    read: list[str] = []  # the notes the start reads and parses (or finds unchanged by their hash)
    batch = parsepool.Parser.batch

    async def counted(self: parsepool.Parser, paths: list[str], *args: Any) -> Any:
        read.extend(paths)
        return await batch(self, paths, *args)

    monkeypatch.setattr(parsepool.Parser, "batch", counted)
    async with started(vault, index={"watch": False}, embeddings=EMBEDDINGS, storage=cache) as vg:
        await vg.indexed()
        assert sorted(read) == [
            "Archive/Alpha/Edited.md",  # edited
            "Archive/Alpha/Now named.md",  # renamed
            "Projects/Beta/Back.md",  # written again at its old path (its own row, as it was)
            "Projects/Gamma/Back.md",  # so the moved one is a new note
        ]
        now = await _ids(vg)
        for path in kept:
            assert now[path] == ids[path.replace("Archive/Alpha", "Projects/Alpha")], path
        twins = {now["Archive/Alpha/Twin.md"], now["Projects/Gamma/Twin.md"]}
        assert twins == {ids["Projects/Alpha/Twin.md"], ids["Projects/Beta/Twin.md"]}
        assert now["Projects/Beta/Back.md"] == ids["Projects/Beta/Back.md"]
        after = await _now(vg)
    _same(after, await _fresh(vault, tmp_path, "fresh"))
