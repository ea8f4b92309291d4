"""Search tools over real HTTP with the SDK client, in both protocol eras, including a note
edited on disk by another program while the server runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.indexer.runner import indexer_of
from tests.conftest import Harness, e2e
from tests.search_vault import SEARCH_VAULT


async def _ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


async def _search_until(client: Client, harness: Harness, query: str, want: list[str]) -> list[str]:
    """Search after each index generation until the hits are `want` (bounded by the indexer's wait)."""
    indexer = indexer_of(next(iter(harness.app.vaults.values())))
    assert indexer is not None
    for _ in range(50):
        generation = indexer.generation
        found = sorted(i["path"] for i in (await _ok(client, "search_text", {"query": query}))["items"])
        if found == sorted(want):
            return found
        await indexer.wait_for(lambda g=generation: indexer.generation > g, within=60)  # type: ignore[misc]
    return found


async def test_search_tools_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            text = await _ok(client, "search_text", {"query": "tomatoes", "limit": 5})
            assert [i["path"] for i in text["items"]] == ["Journal/2026-01-05.md"]
            assert text["items"][0]["snippet"] and text["items"][0]["highlights"]
            regex = await _ok(client, "search_regex", {"pattern": r"code \d+", "limit": 5})
            assert regex["items"][0]["matches"][0]["line"] == 10
            tags = await _ok(client, "search_tags", {"tags": ["project"], "match": "all"})
            assert tags["total"] == 5
            props = await _ok(client, "search_properties", {"filters": [{"key": "priority", "op": ">", "value": 2}]})
            assert [i["path"] for i in props["items"]] == [
                "Private/Secret.md",
                "Projects/Alpha.md",
                "Projects/Gamma.md",
            ]
            notes = await _ok(client, "search_notes", {"mode": "full_text", "query": "rocket", "limit": 2})
            assert notes["total"] >= 4 and len(notes["items"]) == 2
            listed = await _ok(client, "list_tags", {})
            assert any(i["tag"] == "project/alpha" for i in listed["items"])
            bad = await client.call_tool("search_regex", {"pattern": "(oops"})
            assert bad.is_error and bad.structured_content is not None
            assert bad.structured_content["error"]["code"] == "query_syntax_error"


async def test_note_edited_by_another_program_is_found_by_its_new_text(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            target = harness.root / "Journal" / "2026-01-06.md"
            target.write_text("# Tuesday\n\nA platypus visited the lab.\n", encoding="utf-8")
            assert await _search_until(client, harness, "platypus", ["Journal/2026-01-06.md"]) == [
                "Journal/2026-01-06.md"
            ]
            assert await _search_until(client, harness, "orbital", []) == []
            (harness.root / "Outside.md").write_text("# Outside\n\nplatypus again\n", encoding="utf-8")
            both = ["Journal/2026-01-06.md", "Outside.md"]
            assert await _search_until(client, harness, "platypus", both) == both
            target.unlink()
            assert await _search_until(client, harness, "platypus", ["Outside.md"]) == ["Outside.md"]


CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("search_text", {"query": "garden", "folder": "Journal"}, None),
    ("search_text", {"query": '"open'}, "query_syntax_error"),
    ("search_regex", {"pattern": "plant(ed|s)"}, None),
    ("search_regex", {"pattern": "x", "folder": "../up"}, "path_invalid"),
    ("search_tags", {"tags": ["gardening"], "match": "any"}, None),
    ("search_tags", {"tags": []}, "validation_error"),
    ("search_properties", {"filters": [{"key": "status", "op": "contains", "value": "act"}]}, None),
    ("search_properties", {"filters": [{"key": "status", "op": "~", "value": 1}]}, "validation_error"),
    ("query_jsonlogic", {"logic": {"glob": [{"var": "path"}, "Journal/*"]}}, None),
    ("query_jsonlogic", {"logic": {"eval": [1]}}, "query_syntax_error"),
    ("search_vault", {"query": "garden"}, None),
    ("search_vault", {"mode": "semantic", "query": "garden"}, "mode_unavailable"),
    ("search_notes", {"mode": "tags", "tags": ["project"], "limit": 2}, None),
    ("search_notes", {"mode": "full_text"}, "validation_error"),
    ("list_tags", {"prefix": "project"}, None),
    ("list_tags", {"folder": "Nope"}, "note_not_found"),
    ("list_properties", {"folder": "Projects"}, None),
    ("list_properties", {"limit": 0}, "validation_error"),
    ("property_values", {"key": "status"}, None),
    ("property_values", {"key": "status", "cursor": "x"}, "validation_error"),
]


@pytest.mark.covers("search_text", "success")
@pytest.mark.covers("search_text", "failure")
@pytest.mark.covers("search_regex", "success")
@pytest.mark.covers("search_regex", "failure")
@pytest.mark.covers("search_tags", "success")
@pytest.mark.covers("search_tags", "failure")
@pytest.mark.covers("search_properties", "success")
@pytest.mark.covers("search_properties", "failure")
@pytest.mark.covers("query_jsonlogic", "success")
@pytest.mark.covers("query_jsonlogic", "failure")
@pytest.mark.covers("search_vault", "success")
@pytest.mark.covers("search_vault", "failure")
@pytest.mark.covers("search_notes", "success")
@pytest.mark.covers("search_notes", "failure")
@pytest.mark.covers("list_tags", "success")
@pytest.mark.covers("list_tags", "failure")
@pytest.mark.covers("list_properties", "success")
@pytest.mark.covers("list_properties", "failure")
@pytest.mark.covers("property_values", "success")
@pytest.mark.covers("property_values", "failure")
async def test_every_search_tool_succeeds_and_fails_cleanly_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        before = harness.snapshot()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for tool, args, code in CASES:
                result = await client.call_tool(tool, args)
                assert result.structured_content is not None, tool
                if code is None:
                    assert not result.is_error, (tool, result.structured_content)
                    items = result.structured_content["items"]
                    assert items, tool
                    for item in items:
                        assert "path" not in item or item["obsidian_url"].startswith("obsidian://open?vault=")
                else:
                    assert result.is_error, tool
                    assert result.structured_content["error"]["code"] == code, (tool, result.structured_content)
                    if code == "mode_unavailable":  # a mode this configuration can never serve
                        assert result.structured_content["error"]["retryable"] is False
        assert harness.snapshot() == before
