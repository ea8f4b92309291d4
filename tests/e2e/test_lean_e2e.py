"""The default `lean` tools/list over real HTTP with the SDK client, in both protocol eras: the
everyday tools and the capability triad, within the 32 KB budget, and every other tool still
reachable — found, described and called through the triad, or called by its own name —, with
`idempotency_key` and `elicit_token` carried in the request's `_meta`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.policy.visibility import LEAN, TRIAD
from service.tools.models import META_KEYS
from tests.conftest import e2e
from tests.toollist_size import DEFAULT_MODE_BUDGET_BYTES, measure

VAULT = {"A.md": "# A\n\nalpha\n", "B.md": "# B\n"}


async def all_tools(client: Client) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return tools


def structured(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None
    out: dict[str, Any] = result.structured_content
    return out


@pytest.mark.covers("find_capability", "success")
@pytest.mark.covers("describe_capability", "success")
@pytest.mark.covers("call_capability", "success")
@pytest.mark.covers("call_capability", "failure")
@pytest.mark.covers("copy_note", "success")
async def test_lean_lists_the_everyday_tools_and_reaches_the_rest_through_the_finder(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        tools = await all_tools(client)
        assert {t["name"] for t in tools} == {*LEAN, *TRIAD}
        size = measure(tools)
        assert size["model_bytes"] <= DEFAULT_MODE_BUDGET_BYTES, size
        listed = {t["name"]: t for t in tools}
        assert "idempotency_key" not in listed["read_note"]["inputSchema"]["properties"]  # read-only: no use
        assert "idempotency_key" in listed["append_note"]["inputSchema"]["properties"]
        assert "copy_note" not in listed

        found = structured(await client.call_tool("find_capability", {"query": "copy a note to a new path"}))
        assert "copy_note" in [item["name"] for item in found["items"][:3]]
        described = structured(await client.call_tool("describe_capability", {"name": "copy_note"}))
        assert {"path", "new_path"} <= set(described["input_schema"]["properties"])
        called = await client.call_tool(
            "call_capability", {"name": "copy_note", "arguments": {"path": "A", "new_path": "Copies/A"}}
        )
        assert not called.is_error and structured(called)["tool"] == "copy_note"
        assert (harness.root / "Copies" / "A.md").read_text(encoding="utf-8") == VAULT["A.md"]
        # the inner tool's errors are the facade call's, and nothing changes
        before = harness.snapshot()
        again = await client.call_tool(
            "call_capability", {"name": "copy_note", "arguments": {"path": "A", "new_path": "Copies/A"}}
        )
        assert again.is_error and structured(again)["error"]["code"] == "already_exists"
        assert harness.snapshot() == before
        # every tool also stays callable by its own name
        info = await client.call_tool("note_info", {"path": "B"})
        assert not info.is_error and structured(info)["path"] == "B.md"


@pytest.mark.covers("call_capability", "success")
@pytest.mark.covers("append_note", "success")
async def test_meta_carries_the_confirmation_token_and_the_idempotency_key(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        delete = {"name": "delete_note", "arguments": {"path": "A", "permanent": True}}
        asked = await client.call_tool("call_capability", delete)
        assert asked.is_error and structured(asked)["error"]["code"] == "elicit_required"
        assert (harness.root / "A.md").exists()
        token = await harness.token_for("delete_note", path="A", permanent=True)
        done = await client.call_tool("call_capability", delete, meta={META_KEYS["elicit_token"]: token})
        assert not done.is_error, done.structured_content
        assert not (harness.root / "A.md").exists()

        key = {META_KEYS["idempotency_key"]: "append-once"}
        first = await client.call_tool("append_note", {"path": "B", "content": "once\n"}, meta=key)
        second = await client.call_tool("append_note", {"path": "B", "content": "once\n"}, meta=key)
        assert not first.is_error and structured(second) == structured(first)
        assert harness.read("B.md").count("once") == 1
        clash = await client.call_tool(
            "append_note", {"path": "B", "content": "once\n", "idempotency_key": "another"}, meta=key
        )
        assert clash.is_error and structured(clash)["error"]["code"] == "validation_error"
        assert harness.read("B.md").count("once") == 1


async def test_lean_is_the_default_on_stdio_too(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(VAULT)
    for extra in ([], ["--tool-facade", "lean"]):
        params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root), *extra])
        async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
            tools = await all_tools(client)
            assert {t["name"] for t in tools} == {*LEAN, *TRIAD}
            assert measure(tools)["model_bytes"] <= DEFAULT_MODE_BUDGET_BYTES
            info = await client.call_tool("call_capability", {"name": "note_info", "arguments": {"path": "A"}})
            assert not info.is_error and structured(info)["result"]["path"] == "A.md"


async def test_the_python_sdk_warns_of_a_tool_the_list_does_not_show_and_still_answers(
    make_vault: Callable[..., Path], mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """What docs/tools-guide.md tells a newcomer ("Which tools tools/list shows"): the SDK's
    client logs "Tool … not listed by server" for such a call and takes its result unchecked;
    through call_capability (a listed tool) it says nothing."""
    async with e2e(make_vault(VAULT)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        with caplog.at_level("WARNING", logger="mcp"):
            info = await client.call_tool("note_info", {"path": "B"})
            assert not info.is_error and structured(info)["path"] == "B.md"
            assert any("note_info not listed by server" in r.getMessage() for r in caplog.records)
            caplog.clear()
            facade = await client.call_tool("call_capability", {"name": "note_info", "arguments": {"path": "B"}})
            assert structured(facade)["result"]["path"] == "B.md"
            assert not [r for r in caplog.records if "not listed" in r.getMessage()]
