"""The start-up scan maps file names exactly as `VaultPaths.from_abs` does (NFC, hidden folders,
dot files, temp files and links left out) while building no Path objects per file."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

from service.app import VaultgateApp
from service.indexer.runner import VaultIndexer
from service.settings import load_settings


def test_scan_lists_what_from_abs_accepts(make_vault: Callable[..., Path]) -> None:
    nfd = unicodedata.normalize("NFD", "Café.md")
    root = make_vault(
        {
            "A.md": "# A\n",
            "Sub/B.md": "# B\n",
            f"Sub/{nfd}": "# Café\n",
            "Sub/.hidden.md": "x\n",
            "Sub/draft.md.vgtmp": "x\n",
            ".obsidian/x.md": "x\n",
            ".trash/y.md": "x\n",
            "img.png": "png\n",
        }
    )
    os.symlink(root / "A.md", root / "link.md")
    app = VaultgateApp(load_settings(root))
    indexer = next(c for c in app.components if isinstance(c, VaultIndexer))

    notes, files = indexer._scan()

    paths = indexer.vault.paths
    expected: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            full = Path(dirpath) / name
            rel = paths.from_abs(full)
            if rel and not name.startswith(".") and not name.endswith(".vgtmp") and not full.is_symlink():
                expected.add(rel)
    assert files == expected == {"A.md", "Sub/B.md", "Sub/Café.md", "img.png"}
    assert set(notes) == {"A.md", "Sub/B.md", "Sub/Café.md"}
    assert notes["Sub/Café.md"] == (
        (root / "Sub" / nfd).stat().st_mtime,
        (root / "Sub" / nfd).stat().st_size,
    )
