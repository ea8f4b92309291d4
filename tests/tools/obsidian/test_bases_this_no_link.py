"""query_base's `this` for a .base file the snapshot does not hold yet (written meanwhile, the
index not told) takes its size and times from the file opened with no link on the way
(`service.vault.dirfd`): a folder swapped for a link to outside since the call checked the path
is `path_invalid`. Before, `os.stat(root / rel)` followed it and `this.file.size` was the outside
file's."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.obsidian import bases
from tests.conftest import started

BASE = (
    'formulas:\n  size: this.file.size\nfilters: file.ext == "md"\nviews:\n  - type: table\n    order: [formula.size]\n'
)


async def test_a_folder_swapped_for_a_link_before_this_is_measured_is_not_followed(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.base").write_text(BASE + "#" * 4242 + "\n", encoding="utf-8")
    stat_record = bases._stat_record

    def swapped_first(*args: Any) -> Any:
        if not (root / "Race").is_symlink():  # the swap lands after the read, just before the stat
            os.rename(root / "Race", tmp_path / "Race.kept")
            os.symlink(outside, root / "Race")
        return stat_record(*args)

    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        (root / "Race").mkdir()
        (root / "Race/x.base").write_text(BASE, encoding="utf-8")  # on disk only: not in the snapshot
        with monkeypatch.context() as patched:
            patched.setattr(bases, "_stat_record", swapped_first)
            err = await vg.err("query_base", "path_invalid", path="Race/x.base")
            assert str(len(BASE) + 4243) not in str(err)  # the outside file's size
        assert (root / "Race").is_symlink()  # the stat did come after the swap
        os.unlink(root / "Race")
        os.rename(tmp_path / "Race.kept", root / "Race")
        out = await vg.ok("query_base", path="Race/x.base")
        assert str(len(BASE)) in str(out["rows"])  # the file's own size
