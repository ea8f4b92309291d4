"""The search tools (and OCR) given several wrong things answer them in one order (N2, session
77; Q3's s76 "Order" note): the arguments first, then what they name in the vault (a folder, a
note or file), and only then whether the server can do it (`mode_unavailable`), since a caller
who switches tools keeps the same folder and would meet its error next. search_semantic,
search_hybrid, rag_search, search_vault's semantic mode and find_similar's folder answered
mode_unavailable over a folder that does not exist; ocr_attachment over a file no one has;
ocr_bulk over a missing folder. search_notes already checked its folder first. Through the
whole dispatch chain, on a server with embeddings and OCR off; nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import snapshot, started

FILES: dict[str, str | bytes] = {"Places/Kyoto.md": "# Kyoto\n\ntemples\n", "Archive/Old.md": "# Old\n"}

# (tool, arguments that name nothing wrong, the argument naming a folder or a file, as a list?)
TABLE: list[tuple[str, dict[str, Any], str, bool]] = [
    ("search_semantic", {"query": "temples"}, "folder", False),
    ("search_hybrid", {"query": "temples"}, "folder", False),
    ("find_similar", {"path": "Kyoto"}, "folder", False),
    ("rag_search", {"query": "temples"}, "directory_filter", True),
    ("search_vault", {"mode": "semantic", "query": "temples"}, "folder", False),
    ("search_notes", {"mode": "semantic", "query": "temples"}, "folder", False),
    ("ocr_bulk", {}, "folder", False),
    ("graphrag_query", {"query": "temples"}, "folder", False),  # the lead's, after N2's note
    ("context_for_query", {"query": "temples"}, "folder", False),
]


@pytest.mark.parametrize(("tool", "args", "field", "listed"), TABLE, ids=[t[0] for t in TABLE])
async def test_a_folder_that_is_not_there_comes_before_the_mode(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], field: str, listed: bool
) -> None:
    root = make_vault(FILES)
    async with started(root, ocr={"enabled": False}) as vg:
        await vg.indexed()
        before = snapshot(root)

        def named(folder: str) -> dict[str, Any]:
            return {**args, field: [folder] if listed else folder}

        missing = await vg.err(tool, "note_not_found", **named("archiv"))
        assert missing["details"]["suggestions"] == ["Archive"], missing
        assert missing["details"]["field"] == field, missing
        await vg.err(tool, "path_invalid", **named("../outside"))
        await vg.err(tool, "mode_unavailable", **named("Archive"))  # a folder that is there: the mode's answer
        assert snapshot(root) == before


async def test_a_file_that_is_not_there_comes_before_the_mode(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**FILES, "Places/map.png": b"\x89PNG\r\n\x1a\n"})
    async with started(root, ocr={"enabled": False}) as vg:
        await vg.indexed()
        for tool in ("ocr_attachment", "find_similar"):
            error = await vg.err(tool, "note_not_found", path="mapp.png")
            assert error["details"]["suggestions"] == ["Places/map.png"], (tool, error)
        note = await vg.err("ocr_attachment", "note_not_found", path="kyoto")
        assert note["details"]["note"] == "Places/Kyoto.md", note
        await vg.err("ocr_attachment", "mode_unavailable", path="map.png")  # a file that is there
        await vg.err("find_similar", "mode_unavailable", path="Kyoto")


async def test_the_arguments_come_before_the_mode(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        error = await vg.err("search_vault", "validation_error", mode="semantic", folder="Nowhere")
        assert error["details"]["field"] == "query", error
