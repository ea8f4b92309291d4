"""E2E (both eras, SDK client over real HTTP): on a server with embeddings and OCR off, a search
tool given a folder that is not there answers note_not_found naming the folder meant before it
answers mode_unavailable; ocr_attachment given a file no one has answers note_not_found first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error
from tests.tools.search.test_errors_in_one_order import FILES


async def test_the_folder_comes_before_the_mode(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES), ocr={"enabled": False}) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for tool, args in (
                ("search_semantic", {"query": "temples", "folder": "archiv"}),
                ("rag_search", {"query": "temples", "directory_filter": ["archiv"]}),
                ("find_similar", {"path": "Kyoto", "folder": "archiv"}),
                ("graphrag_query", {"query": "temples", "folder": "archiv"}),
                ("context_for_query", {"query": "temples", "folder": "archiv"}),
            ):
                err = await error(client, tool, args)
                assert err["code"] == "note_not_found" and err["details"]["suggestions"] == ["Archive"], (tool, err)
            err = await error(client, "ocr_attachment", {"path": "nowhere.png"})
            assert err["code"] == "note_not_found", err
            err = await error(client, "search_semantic", {"query": "temples", "folder": "Archive"})
            assert err["code"] == "mode_unavailable", err
