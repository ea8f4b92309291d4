"""Excalidraw on the 133 drawings of a real vault, saved by the plugin over two years of its
versions (skipped without VAULTGATE_TEST_DATA): every one reads, written back unchanged is the
same bytes through the tools, and rebuilt from its scene alone is the plugin's own text for all
but one (a drawing from before the plugin listed element links)."""

from __future__ import annotations

import shutil
from pathlib import Path

from service.obsidian import excalidraw as ex
from service.obsidian import excalidraw_elements as els
from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

DRAWINGS = VAULTS / "digitalyoshixi-zettelkasten" / "Excalidraw"
# Its one text element's URL link sits only in the scene: written before "## Element Links" existed.
OLDER_THAN_ELEMENT_LINKS = {"Drawing 2025-01-27 12.08.50.excalidraw.md"}


@needs(DRAWINGS)
def test_real_drawings_rebuilt_from_their_scene_are_the_plugins_text() -> None:
    rebuilt: list[str] = []
    files = sorted(DRAWINGS.glob("*.excalidraw.md"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        drawing = ex.parse_markdown(text, max_chars=16 * 2**20)
        assert els.problems(els.elements_of(drawing.scene)) == [], path.name
        drawing.section_raw, drawing.block_raw = "", ""  # nothing reused: section and block rebuilt
        if ex.render(drawing) == text:
            rebuilt.append(path.name)
    assert len(files) == 133
    assert sorted({p.name for p in files} - set(rebuilt)) == sorted(OLDER_THAN_ELEMENT_LINKS)


@needs(DRAWINGS)
async def test_real_drawings_round_trip_through_the_tools_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    writable_copy(DRAWINGS, root / "Excalidraw", ignore=shutil.ignore_patterns("Scripts"))
    async with started(root) as vg:
        await vg.indexed()
        same = 0
        for path in sorted((root / "Excalidraw").glob("*.excalidraw.md")):
            rel = path.relative_to(root).as_posix()
            before = path.read_bytes()
            read = await vg.ok("read_excalidraw", path=rel, include_scene=True)
            out = await vg.ok(
                "write_excalidraw", path=rel, elements=read["scene"]["elements"], expected_etag=read["etag"]
            )
            same += path.read_bytes() == before and out["changed"] is False
        assert same == 133
        found = await vg.ok("search_text", query='"OPNSense VM"', limit=5)
        assert [i["path"] for i in found["items"]] == ["Excalidraw/Drawing 2025-01-27 12.08.50.excalidraw.md"]
        noise = await vg.ok("search_text", query="versionNonce", limit=5)
        assert noise["items"] == []  # 131 plain json scenes, none of it indexed as words
