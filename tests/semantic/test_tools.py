"""search_semantic, search_hybrid, find_similar through the dispatch chain, with the builtin model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.semantic.helpers import VAULT, halves_meet, semantic, settled


@pytest.mark.covers("search_semantic", "success")
async def test_search_semantic_finds_by_meaning(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("search_semantic", query="how do I make bread with a natural leaven", limit=3)
        assert out["items"][0]["path"] == "Baking/Sourdough.md"
        assert out["complete"] is True
        assert out["model"].startswith("builtin:")
        top = out["items"][0]
        assert top["heading"] in ("Starter", "Loaf")
        assert top["obsidian_url"].endswith("%23" + top["heading"])
        assert top["chunk"]
        out = await h.ok("search_semantic", query="holiday abroad in asia", limit=1)
        assert out["items"][0]["path"] == "Travel/Japan.md"
        assert out["next_cursor"]
        page2 = await h.ok("search_semantic", query="holiday abroad in asia", limit=1, cursor=out["next_cursor"])
        assert page2["items"][0]["path"] != "Travel/Japan.md"


@pytest.mark.covers("search_semantic", "failure")
async def test_search_semantic_off_and_bad_args(make_vault: Callable[..., Path]) -> None:
    from tests.conftest import started

    async with started(make_vault(VAULT)) as h:  # provider "none"
        await h.indexed()
        await h.err("search_semantic", "mode_unavailable", query="bread")
        await h.err("search_hybrid", "mode_unavailable", query="bread")
        await h.err("find_similar", "mode_unavailable", path="Pets/Cats.md")
        text = await h.ok("search_text", query="kitten")
        assert {i["path"] for i in text["items"]} == {"Pets/Cats.md", "Private/Diary.md"}
    async with semantic(make_vault(VAULT)) as h:
        await h.err("search_semantic", "validation_error", query="")
        await h.err("search_semantic", "note_not_found", query="bread", folder="Nowhere")


async def test_filters_folder_tags_dates(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("search_semantic", query="young cat care", folder="Private")
        assert [i["path"] for i in out["items"]] == ["Private/Diary.md"]
        out = await h.ok("search_semantic", query="young cat care", tags=["food"])
        assert [i["path"] for i in out["items"]] == ["Baking/Sourdough.md"]
        out = await h.ok("search_semantic", query="young cat care", modified_after="2999-01-01")
        assert out["items"] == []
        out = await h.ok("search_semantic", query="young cat care", modified_before="2999-01-01", limit=10)
        assert len(out["items"]) == len(VAULT)


@pytest.mark.covers("search_hybrid", "success")
async def test_search_hybrid(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("search_hybrid", query="kitten vet", limit=5)
        paths = [i["path"] for i in out["items"]]
        assert paths[0] in ("Pets/Cats.md", "Private/Diary.md")
        assert {"Pets/Cats.md", "Private/Diary.md"} <= set(paths)
        assert out["items"][0]["score"] == 1.0
        out = await h.ok("search_hybrid", query="wild yeast starter", limit=1)
        assert out["items"][0]["path"] == "Baking/Sourdough.md"


async def test_search_hybrid_lists_a_note_found_by_its_words_only(make_vault: Callable[..., Path]) -> None:
    """A canvas has no chunks (it is searched by its words, not by meaning): search_hybrid ranks it
    from the text candidates alone, with its path, title and mtime as search_text has them."""
    board = {"nodes": [{"id": "a", "type": "text", "text": "zebra crossing", "x": 0, "y": 0, "width": 9, "height": 9}]}
    async with semantic(make_vault({**VAULT, "Boards/Zebra.canvas": json.dumps(board)})) as h:
        text = await h.ok("search_text", query="zebra")
        (expected,) = [i for i in text["items"] if i["path"] == "Boards/Zebra.canvas"]
        out = await h.ok("search_hybrid", query="zebra", limit=10)
        (found,) = [i for i in out["items"] if i["path"] == "Boards/Zebra.canvas"]
        assert (found["title"], found["mtime"]) == (expected["title"], expected["mtime"])
        assert found["chunk"] is None and found["heading"] is None
        assert found["obsidian_url"] == expected["obsidian_url"]


async def test_search_hybrid_runs_its_text_and_vector_halves_at_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The BM25 half and the vector half run side by side on two readers (each waits here, bounded,
    until the other has started), and the answer is the one both halves give on one connection."""

    async with semantic(make_vault(VAULT)) as h:
        alone = await h.ok("search_hybrid", query="kitten vet", limit=5)
        halves_meet(monkeypatch, "text_side")
        out = await h.ok("search_hybrid", query="kitten vet", limit=5)
        assert out["items"] == alone["items"]


async def test_a_note_deleted_on_disk_is_left_out_and_the_page_cut_again(make_vault: Callable[..., Path]) -> None:
    """A page is read on the reader that ranked it (search_semantic) or fused it (search_hybrid)
    while its files are on disk; a note removed by another program before any watcher applies
    it (here there is none) is left out and the page is cut again without it."""
    root = make_vault(VAULT)
    async with semantic(root, index={"watch": False}) as h:
        before = await h.ok("search_semantic", query="young cat care", limit=3)
        ranked = [i["path"] for i in before["items"]]
        gone = ranked[0]
        (root / gone).unlink()
        after = await h.ok("search_semantic", query="young cat care", limit=2)
        assert [i["path"] for i in after["items"]] == [p for p in ranked if p != gone][:2]
        assert all(i["chunk"] for i in after["items"]) and after["next_cursor"]
        hybrid = await h.ok("search_hybrid", query="kitten vet", limit=2)
        assert gone not in [i["path"] for i in hybrid["items"]] and len(hybrid["items"]) == 2


@pytest.mark.covers("search_hybrid", "failure")
async def test_search_hybrid_bad_cursor(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        first = await h.ok("search_semantic", query="cats", limit=1)
        await h.err("search_hybrid", "validation_error", query="cats", cursor=first["next_cursor"])


@pytest.mark.covers("find_similar", "success")
async def test_find_similar(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("find_similar", path="Pets/Cats.md", limit=2)
        paths = [i["path"] for i in out["items"]]
        assert "Pets/Cats.md" not in paths
        assert paths[0] == "Private/Diary.md"
        by_name = await h.ok("find_similar", path="[[cats]]", limit=2)  # addressed as a wikilink
        assert [i["path"] for i in by_name["items"]] == paths


@pytest.mark.covers("find_similar", "failure")
async def test_find_similar_failures(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        await h.err("find_similar", "note_not_found", path="Nope.md")
        await h.err("find_similar", "path_invalid", path="../outside.md")


ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


async def test_denied_notes_never_appear(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with semantic(root, acl=ACL) as h:
        for tool in ("search_semantic", "search_hybrid"):
            out = await h.ok(tool, query="my kitten chewed the sofa", limit=20)
            paths = [i["path"] for i in out["items"]]
            assert "Private/Diary.md" not in paths and paths
            assert all("sofa" not in (i["chunk"] or "") for i in out["items"])
        out = await h.ok("find_similar", path="Pets/Cats.md", limit=20)
        assert "Private/Diary.md" not in [i["path"] for i in out["items"]]
        rag = await h.ok("rag_search", query="my kitten chewed the sofa", max_results=50)
        assert rag["results"] and all(r["source_file"] != "Private/Diary.md" for r in rag["results"])
        for mode in ("semantic", "hybrid"):
            out = await h.ok("search_vault", mode=mode, query="my kitten chewed the sofa", limit=50)
            assert "Private/Diary.md" not in [i["path"] for i in out["items"]]
            out = await h.ok("search_notes", mode=mode, query="my kitten chewed the sofa", limit=50)
            assert "Private/Diary.md" not in [i["path"] for i in out["items"]]
        await h.err("find_similar", "acl_denied", path="Private/Diary.md")
        await settled(h)
