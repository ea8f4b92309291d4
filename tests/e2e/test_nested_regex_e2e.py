"""Over real HTTP with the SDK client: a regular expression nested 400 groups deep answers
query_syntax_error from search_regex and tasks_filter (it was internal_error: the `regex`
engine's parser recursed past Python's limit)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e

NESTED = "(" * 400 + "alpha" + ")" * 400


async def test_a_deeply_nested_regex_is_a_syntax_error_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n\n- [ ] alpha task\n"})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        for tool, args in (
            ("search_regex", {"pattern": NESTED}),
            ("tasks_filter", {"query": f"description regex matches /{NESTED}/"}),
        ):
            answer = await client.call_tool(tool, args)
            assert answer.is_error and answer.structured_content is not None, tool
            assert answer.structured_content["error"]["code"] == "query_syntax_error", tool
        found = await client.call_tool("search_regex", {"pattern": "(alpha)"})
        assert found.structured_content is not None
        assert [i["path"] for i in found.structured_content["items"]] == ["A.md"]
