"""OCR never reads an image through a folder swapped for a link to outside the vault after the
call checked the path: the server's measure and the worker's read both open the file with no link
followed anywhere on the way (`service.vault.dirfd`), and answer `path_invalid`. Before, both
opened `root / rel` by path: the outside image was read and its text came back to the caller
(and was cached and indexed under the vault path)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.ocr.engine import OcrEngine
from service.ocr.reading import OcrReader
from tests.conftest import started
from tests.tools.obsidian.ocr_images import needs_engine, text_png

pytestmark = needs_engine
SECRET = "Faraway ledger 4242"


@pytest.mark.timeout(600)  # on the commit before, the outside image was recognized by a nice-10 worker
async def test_a_folder_swapped_for_a_link_before_ocr_reads_is_not_read_through(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Scans/a.png": text_png("Inside page"), "Home.md": "# Home\n\n![[a.png]]\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.png").write_bytes(text_png(SECRET))
    kept = tmp_path / "Scans.kept"

    def swap() -> None:  # the swap lands after the call's path check, just before the read
        if not (root / "Scans").is_symlink():
            os.rename(root / "Scans", kept)
            os.symlink(outside, root / "Scans")

    def unswap() -> None:
        os.unlink(root / "Scans")
        os.rename(kept, root / "Scans")

    measure = OcrReader._measure
    read = OcrEngine.read

    def swapped_before_measure(self: OcrReader, *args: Any) -> Any:
        swap()
        return measure(self, *args)

    async def swapped_before_worker(self: OcrEngine, *args: Any) -> Any:
        swap()
        return await read(self, *args)

    async with started(root, ocr={"timeout_s": 600.0}) as vg:
        await vg.indexed()
        with monkeypatch.context() as patched:  # the server's own read of the file
            patched.setattr(OcrReader, "_measure", swapped_before_measure)
            err = await vg.err("ocr_attachment", "path_invalid", path="Scans/a.png")
            assert SECRET not in str(err)
        assert (root / "Scans").is_symlink()  # the read did come after the swap
        unswap()
        with monkeypatch.context() as patched:  # the worker's read, after the server measured the file inside
            patched.setattr(OcrEngine, "read", swapped_before_worker)
            err = await vg.err("ocr_attachment", "path_invalid", path="Scans/a.png")
            assert SECRET not in str(err)
        assert (root / "Scans").is_symlink()
        unswap()
        assert (await vg.ok("search_text", query="ledger"))["items"] == []
