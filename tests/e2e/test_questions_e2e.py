"""Questions typed as sentences, over real HTTP with the SDK client: on a temporary vault
(always) and on the real Obsidian Help vault (with VAULTGATE_TEST_DATA), where the example of
the issue, "how do I link to a heading in another note", must find the Internal links page."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.real_vaults import VAULTS, needs, writable_copy
from tests.search_vault import SEARCH_VAULT

HELP = VAULTS / "obsidian-help-en"


def _paths(out: dict[str, Any]) -> list[str]:
    return [i["path"] for i in out["items"]]


@pytest.mark.covers("search_text", "success")
@pytest.mark.covers("search_notes", "success")
@pytest.mark.covers("search_vault", "success")
@pytest.mark.covers("search_text", "failure")
async def test_questions_over_http_on_a_temp_vault(make_vault: Callable[..., Path], mode: str) -> None:
    question = "What do I need to launch a rocket into orbit?"
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            text = await _ok(client, "search_text", {"query": question, "limit": 5})
            assert text["match"] == "any" and _paths(text)[0] == "Projects/Alpha.md"
            assert text["items"][0]["match"] == "any" and text["items"][0]["highlights"]
            strict = await _ok(client, "search_text", {"query": "when does the rocket launch on friday"})
            assert [i["match"] for i in strict["items"]][:2] == ["all", "any"]
            notes = await _ok(client, "search_notes", {"mode": "full_text", "query": question, "limit": 3})
            assert notes["text_match"] == "any" and _paths(notes)[0] == "Projects/Alpha.md"
            vault = await _ok(client, "search_vault", {"query": question, "limit": 3})
            assert vault["mode"] == "text" and vault["text_match"] == "any"
            bad = await client.call_tool("search_text", {"query": 'how do I "open'})
            assert bad.is_error and bad.structured_content is not None
            assert bad.structured_content["error"]["code"] == "query_syntax_error"


@needs(HELP)
@pytest.mark.covers("search_text", "success")
async def test_issue_question_finds_the_internal_links_page_on_the_help_vault(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root, ignore=shutil.ignore_patterns(".vaultgate"))
    async with e2e(root) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as client:
            out = await _ok(client, "search_text", {"query": "how do I link to a heading in another note", "limit": 5})
            assert _paths(out)[0] == "Linking notes and files/Internal links.md", _paths(out)
            assert out["items"][0]["snippet"] and out["items"][0]["highlights"]
            notes = await _ok(
                client, "search_notes", {"mode": "full_text", "query": "how can I show a PDF inside a note", "limit": 5}
            )
            assert "Linking notes and files/Embed files.md" in _paths(notes)[:3], _paths(notes)
