"""The watcher refuses symlinks as the start-up scan does: a folder or note linked into the vault
while it is served (`ln -s /outside Vault/Linked`) never reaches the index, so no search, regex
search or backlink shows text from outside the vault; a folder swapped for a link is forgotten.

Ordering, not time: a sentinel note written after the link is awaited on the bus, and the
watcher applies batches in order, so the link's events were handled by then."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started
from tests.unit.indexer.test_watcher import Recorder


@pytest.fixture
async def watched(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[Harness, Recorder]]:
    files = {"Hub.md": "# Hub\n", "Area/Topic.md": "# Topic\n\nalpha\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        recorder = Recorder()
        vg.app.vaults["main"].bus.subscribe(recorder)
        yield vg, recorder


async def _sentinel(vg: Harness, recorder: Recorder, name: str) -> None:
    (vg.root / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == f"{name}.md")


async def _nothing_from_outside(vg: Harness) -> None:
    assert (await vg.ok("search_text", query="exfiltrated"))["items"] == []
    regex = await vg.ok("search_regex", pattern="exfiltrated|Hub")
    assert not [i["path"] for i in regex["items"] if i["path"].startswith(("Linked", "Leak", "Area"))]
    backlinks = await vg.ok("get_backlinks", path="Hub.md")
    assert [i for i in backlinks["items"] if "Linked" in str(i) or "Leak" in str(i)] == []
    listed = await vg.ok("list_notes", limit=100)
    assert not [i["path"] for i in listed["items"] if i["path"].startswith(("Linked/", "Leak"))]


async def test_a_symlinked_folder_or_note_appearing_while_serving_is_not_indexed(
    watched: tuple[Harness, Recorder], tmp_path: Path
) -> None:
    vg, recorder = watched
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nexfiltrated words, see [[Hub]]\n", encoding="utf-8")
    os.symlink(outside, vg.root / "Linked")
    os.symlink(outside / "secret.md", vg.root / "Leak.md")
    await _sentinel(vg, recorder, "Sentinel1")
    (outside / "later.md").write_text("exfiltrated later [[Hub]]\n", encoding="utf-8")  # seen as Linked/later.md
    await _sentinel(vg, recorder, "Sentinel2")
    await _nothing_from_outside(vg)


async def test_a_folder_swapped_for_a_symlink_is_forgotten(watched: tuple[Harness, Recorder], tmp_path: Path) -> None:
    vg, recorder = watched
    assert [i["path"] for i in (await vg.ok("search_text", query="alpha"))["items"]] == ["Area/Topic.md"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Topic.md").write_text("# Topic\n\nexfiltrated alpha [[Hub]]\n", encoding="utf-8")
    shutil.rmtree(vg.root / "Area")
    os.symlink(outside, vg.root / "Area")
    await _sentinel(vg, recorder, "Sentinel")
    await _nothing_from_outside(vg)
    assert (await vg.ok("search_text", query="alpha"))["items"] == []
