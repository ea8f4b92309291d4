"""Bases never give the size and times of a file through a folder swapped for a link to outside
the vault: an attachment's `file.size`/`file.mtime` come from the file opened with no link on the
way (`service.vault.dirfd`); one reached through a link is left out, as a file gone. Before,
`os.stat(root / rel)` followed it and the outside file's size was listed under the vault path."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.bases import source
from tests.conftest import started

PDFS = 'filters: file.ext == "pdf"\nviews:\n  - type: table\n    order: [file.name, file.size]\n'


async def test_a_folder_swapped_for_a_link_before_an_attachment_is_measured_is_not_followed(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Race/a.pdf": b"%PDF-1.4 in", "Home.md": "# Home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.pdf").write_bytes(b"%PDF-1.4 " + b"x" * 4242)
    on_disk = source.on_disk

    def swapped_first(at: str, rel: str) -> str:
        if rel == "Race/a.pdf" and not (root / "Race").is_symlink():  # the swap lands just before the stat
            os.rename(root / "Race", tmp_path / "Race.kept")
            os.symlink(outside, root / "Race")
        return on_disk(at, rel)

    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        monkeypatch.setattr(source, "on_disk", swapped_first)
        out = await vg.ok("query_base", yaml=PDFS)
        assert (root / "Race").is_symlink()  # the snapshot did measure after the swap
        assert "4251" not in str(out["rows"]) and out["rows"] == []
