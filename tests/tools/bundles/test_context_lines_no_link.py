"""context_for_query never reads a note through a folder swapped for a link to outside the vault
after the search found it: the passage's line numbers come from the note opened with no link on
the way (`service.vault.dirfd`), else none (`lines: null`, as for a note gone meanwhile). Before,
`root / path` was read by path: the lines cited were those of the outside file's text."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.bundles import context
from tests.semantic.helpers import semantic

PASSAGE = "The zeppelin manifest lists every crate loaded at the northern dock."


async def test_a_folder_swapped_for_a_link_before_the_lines_are_read_is_not_read_through(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Race/Dock.md": f"# Dock\n\n{PASSAGE}\n", "Home.md": "# Home\n\nGardening.\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Dock.md").write_text("# Far\n\n" + "filler\n\n" * 20 + f"{PASSAGE}\n", encoding="utf-8")
    line_ranges = context.line_ranges

    def swapped_first(at: Path, spans: list[tuple[str, str]], *rest: Any) -> Any:
        if not (root / "Race").is_symlink():  # the swap lands after the search, just before the read
            os.rename(root / "Race", tmp_path / "Race.kept")
            os.symlink(outside, root / "Race")
        return line_ranges(at, spans, *rest)

    async with semantic(root) as h:
        monkeypatch.setattr(context, "line_ranges", swapped_first)
        out = await h.ok("context_for_query", query="zeppelin manifest crates at the northern dock", max_tokens=2000)
        [passage] = [p for p in out["passages"] if p["path"] == "Race/Dock.md"]
        assert (root / "Race").is_symlink()  # the lines were read after the swap
        assert passage["lines"] is None
        os.unlink(root / "Race")
        os.rename(tmp_path / "Race.kept", root / "Race")
        monkeypatch.setattr(context, "line_ranges", line_ranges)
        out = await h.ok("context_for_query", query="zeppelin manifest crates at the northern dock", max_tokens=2000)
        [passage] = [p for p in out["passages"] if p["path"] == "Race/Dock.md"]
        assert passage["lines"] == {"start": 3, "end": 3}  # the note itself, read with no link on the way
