"""A dry run's later pages rewrite only their own notes, and answer what planning it all again answers.

Each page of a move_note / rename_note / rewrite_links preview planned the whole change again:
every note it rewrites was read and rewritten to be counted (the zettelkasten's largest folder,
2,612 notes: ~0.8 s of CPU a page, 53 pages at the default limit). A page's plan now keeps what
it found of every edit on the vault (`service.tools.change_pages`), and a later page of the same
call, with nothing changed for the index since, reads only the notes it lists
(`service.graph.moves.scan_page`). The oracle is the same paging with nothing kept (each page
planned whole, as before): the same pages, counts and lines, also when a note changes between two
pages through a tool (the index hears of it) or on disk behind the index's back (the page's
own notes no longer change as found: planned whole again).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.tools.graph import rewrite as rewrite_tool
from service.tools.notes import moves as move_tool
from service.vault.files import VaultFiles
from tests.conftest import Harness, started, write_files

FOLDER = {f"A/N{i:02d}.md": f"# N{i}\n\n[up](../Top.md) and [[A/N{(i + 1) % 12:02d}]]\n" for i in range(12)}
LINKING = {f"L/L{i:02d}.md": f"See [[A/N{i:02d}]] and [[Hub]].\n[x](../A/N{i:02d}.md)\n" for i in range(12)}
VAULT = {**FOLDER, **LINKING, "Top.md": "# Top\n", "Hub.md": "# Hub\n", "Other.md": "# Other\n"}

CALLS = [
    ("move_note", {"path": "A", "new_path": "Archive/A"}),
    ("rename_note", {"path": "Hub", "new_path": "Centre"}),
    ("rewrite_links", {"old_target": "Hub", "new_target": "Other"}),
]


def _nothing_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page planned whole, as before."""
    monkeypatch.setattr(move_tool, "kept_walk", lambda *_: None, raising=False)
    monkeypatch.setattr(rewrite_tool, "kept_walk", lambda *_: None, raising=False)


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    read = VaultFiles.read

    def counted(self: VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
        if not vp.rel.startswith(".obsidian/"):  # the bookmarks and the workspace are read by every page
            reads.append(vp.rel)
        return read(self, vp, *args, **kwargs)

    monkeypatch.setattr(VaultFiles, "read", counted)
    return reads


async def _page(vg: Harness, tool: str, args: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    return await vg.ok(tool, **args, dry_run=True, limit=3, **({"cursor": cursor} if cursor else {}))


def _shown(page: dict[str, Any]) -> dict[str, Any]:
    keys = ("items", "moved", "files_moved", "files_changed", "notes_rewritten", "links_rewritten", "truncated")
    return {k: page[k] for k in keys if k in page} | {"more": page.get("next_cursor") is not None}


async def _all_pages(vg: Harness, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    pages, cursor = [], None
    while True:
        page = await _page(vg, tool, args, cursor)
        pages.append(_shown(page))
        cursor = page.get("next_cursor")
        if not cursor:
            return pages


@pytest.mark.parametrize(("tool", "args"), CALLS)
async def test_later_pages_read_only_their_notes_and_match_planning_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    write_files(tmp_path, VAULT)
    async with started(tmp_path) as vg:
        await vg.indexed()
        first = await _page(vg, tool, args, None)
        reads = _counted_reads(monkeypatch)
        second = await _page(vg, tool, args, first["next_cursor"])
        # the page's own notes (limit 3), none of the other pages' (12 or 24 notes change)
        assert len(second["items"]) == 3
        assert sorted(set(reads)) == sorted({i["path"] for i in second["items"]})
        kept = [_shown(first), _shown(second)] + (await _all_pages(vg, tool, args))[2:]
        _nothing_kept(monkeypatch)
        assert await _all_pages(vg, tool, args) == kept
    assert len(kept) >= 4


@pytest.mark.parametrize(("tool", "args"), CALLS)
async def test_a_note_edited_between_pages_is_in_the_next_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    write_files(tmp_path, VAULT)
    async with started(tmp_path) as vg:
        await vg.indexed()
        first = await _page(vg, tool, args, None)
        await vg.ok("append_note", path="L/L11", content="\nAlso [[A/N03]] and [[Hub]] again.\n")
        second = await _page(vg, tool, args, first["next_cursor"])
        _nothing_kept(monkeypatch)
        again = await _page(vg, tool, args, first["next_cursor"])
    assert _shown(second) == _shown(again)
    assert second["links_rewritten"] > first["links_rewritten"]


@pytest.mark.parametrize(("tool", "args"), CALLS)
async def test_a_note_of_the_page_changed_behind_the_index_is_planned_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    write_files(tmp_path, VAULT)
    async with started(tmp_path, index={"watch": False}) as vg:
        await vg.indexed()
        first = await _page(vg, tool, args, None)
        listed = [i["path"] for i in (await _page(vg, tool, args, first["next_cursor"]))["items"]]
        # the index never hears of it: the note no longer links to anything that changes
        (tmp_path / listed[0]).write_text("Nothing linked here now.\n", encoding="utf-8")
        second = await _page(vg, tool, args, first["next_cursor"])
        _nothing_kept(monkeypatch)
        again = await _page(vg, tool, args, first["next_cursor"])
    assert listed[0] not in [i["path"] for i in second["items"]]
    assert _shown(second) == _shown(again)
