"""Resources, subscriptions, prompts, completion and logging over real HTTP, in both eras where they exist."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import Harness


async def test_notes_are_listed_and_read_as_resources(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
        listed = await c.list_resources()
        uris = {str(r.uri) for r in listed.resources}
        assert "vault://main/Projects/Plan.md" in uris
        assert not any(".obsidian" in u for u in uris)
        read = await c.read_resource("vault://main/Projects/Plan.md")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents) and content.text.startswith("---\nstatus: active")
        templates = await c.list_resource_templates()
        assert templates.resource_templates[0].uri_template == "vault://{vault}/{path}"
        with pytest.raises(MCPError):
            await c.read_resource("vault://main/Missing.md")
        with pytest.raises(MCPError):
            await c.read_resource("vault://main/../secret.md")


async def test_resource_list_paginates(make_vault: Any) -> None:
    from tests.conftest import e2e

    files = {f"n{i:03}.md": "x\n" for i in range(250)}
    async with e2e(make_vault(files)) as (url, _), Client(url, mode="legacy") as c:
        first = await c.list_resources()
        assert len(first.resources) == 200 and first.next_cursor
        second = await c.list_resources(cursor=first.next_cursor)
        assert len(second.resources) == 50 and second.next_cursor is None


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_subscribers_hear_about_changes_from_tools_and_from_disk(e2e_server: tuple[str, Harness]) -> None:
    url, h = e2e_server
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    await h.indexed()
    async with Client(url, mode="legacy", message_handler=on_message) as c:
        await c.subscribe_resource("vault://main/Welcome.md")
        await c.call_tool("append_note", {"path": "Welcome", "content": "more\n"})
        assert await asyncio.wait_for(updates.get(), 10) == "vault://main/Welcome.md"
        (h.root / "Welcome.md").write_text("edited by another program\n", encoding="utf-8")
        assert await asyncio.wait_for(updates.get(), 20) == "vault://main/Welcome.md"
        await c.unsubscribe_resource("vault://main/Welcome.md")


async def test_prompts_embed_vault_content(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
        names = {p.name for p in (await c.list_prompts()).prompts}
        assert {"summarize_note", "review_folder", "daily_review"} <= names
        prompt = await c.get_prompt("summarize_note", {"path": "Projects/Plan"})
        text = prompt.messages[0].content
        assert isinstance(text, types.TextContent) and "Ship it." in text.text
        review = await c.get_prompt("review_folder", {"folder": "Projects"})
        body = review.messages[0].content
        assert isinstance(body, types.TextContent) and "Projects/Notes/Idea.md" in body.text
        with pytest.raises(MCPError):
            await c.get_prompt("summarize_note", {"path": "../x"})


async def test_completion_offers_note_paths_and_folders(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
        ref = types.PromptReference(name="summarize_note")
        result = await c.complete(ref, {"name": "path", "value": "proj"})
        assert result.completion.values[:2] == ["Projects/Notes/Idea.md", "Projects/Plan.md"]
        folders = await c.complete(types.PromptReference(name="review_folder"), {"name": "folder", "value": "Pro"})
        assert "Projects" in folders.completion.values
        template = types.ResourceTemplateReference(uri="vault://{vault}/{path}")
        idea = await c.complete(template, {"name": "path", "value": "idea"})
        assert idea.completion.values == ["Projects/Notes/Idea.md"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_logging_level_can_be_set(e2e_server: tuple[str, Harness]) -> None:
    url, _ = e2e_server
    async with Client(url, mode="legacy") as c:
        await c.set_logging_level("warning")
        caps = c.session.server_capabilities if hasattr(c, "session") else None
        assert caps is None or caps.logging is not None


@pytest.mark.parametrize("cursor", ["-1", "-200", "abc", "1.5", " 3", "+1", "99999"])
async def test_tools_list_rejects_a_cursor_it_never_issued(e2e_server: tuple[str, Harness], cursor: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode="legacy") as c:
        with pytest.raises(MCPError) as info:
            await c.list_tools(cursor=cursor, cache_mode="bypass")
        assert info.value.error.code == types.INVALID_PARAMS
        first = await c.list_tools(cursor="0", cache_mode="bypass")
        assert first.tools and first.tools == (await c.list_tools(cache_mode="bypass")).tools
