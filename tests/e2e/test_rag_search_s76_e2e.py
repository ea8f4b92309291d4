"""Session 76, rag_search over real HTTP with the SDK client (both eras): a directory_filter
folder no one has is note_not_found whose details.field names directory_filter, the argument to
fix (it named `folder`, which rag_search does not take)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.semantic.helpers import VAULT, model_ready, settled


async def test_rag_search_names_directory_filter_for_an_unknown_folder(
    make_vault: Callable[..., Path], mode: str
) -> None:
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(VAULT), embeddings=embeddings) as (url, harness):
        await settled(harness)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            err = await error(client, "rag_search", {"query": "kitten", "directory_filter": ["Pets/Cats.md"]})
            assert err["code"] == "note_not_found" and err["details"]["field"] == "directory_filter", err
            found = await ok(client, "rag_search", {"query": "kitten", "directory_filter": ["Pets"]})
            assert {r["source_file"] for r in found["results"]} == {"Pets/Cats.md"}
