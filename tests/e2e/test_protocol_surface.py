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
        assert await asyncio.wait_for(updates.get(), 60) == "vault://main/Welcome.md"
        (h.root / "Welcome.md").write_text("edited by another program\n", encoding="utf-8")
        assert await asyncio.wait_for(updates.get(), 60) == "vault://main/Welcome.md"
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


LOG_VAULT = {
    "Welcome.md": "# Welcome\n\nHello.\n",
    "Bad.md": "---\nstatus: [unclosed\n---\n# Bad\n",
}


def _log_queue() -> tuple[asyncio.Queue[types.LoggingMessageNotificationParams], Any]:
    messages: asyncio.Queue[types.LoggingMessageNotificationParams] = asyncio.Queue()

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        await messages.put(params)

    return messages, on_log


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_log_notifications_follow_the_level_the_client_set(make_vault: Any) -> None:
    """A message about a call rides that call's stream, before its response: so when the first
    message received is the one for a later call, nothing was sent for the earlier ones."""
    from tests.conftest import e2e

    messages, on_log = _log_queue()
    async with e2e(make_vault(LOG_VAULT)) as (url, h), Client(url, mode="legacy", logging_callback=on_log) as c:
        await h.indexed()
        assert (await c.call_tool("read_note", {"path": "Missing"})).is_error  # no level set yet: nothing
        await c.set_logging_level("warning")
        assert not (await c.call_tool("read_note", {"path": "Welcome"})).is_error  # debug: below warning
        assert not (await c.call_tool("read_note", {"path": "Bad"})).is_error  # info: below warning
        assert (await c.call_tool("read_note", {"path": "Ghost"})).is_error
        first = await asyncio.wait_for(messages.get(), 60)
        assert first.level == "warning" and first.logger == "vaultgate"
        assert first.data["event"] == "tool_failed" and first.data["tool"] == "read_note"
        assert first.data["code"] == "note_not_found" and "Ghost" in first.data["message"]
        assert messages.empty()

        await c.set_logging_level("info")
        await c.call_tool("read_note", {"path": "Bad"})
        info = await asyncio.wait_for(messages.get(), 60)
        assert info.level == "info" and info.data["event"] == "invalid_frontmatter" and info.data["path"] == "Bad.md"

        await c.set_logging_level("debug")
        await c.call_tool("note_info", {"path": "Welcome"})
        debug = await asyncio.wait_for(messages.get(), 60)
        assert debug.level == "debug" and debug.data["tool"] == "note_info" and debug.data["ok"] is True
        assert debug.data["duration_ms"] >= 0 and messages.empty()

        await c.set_logging_level("info")
        assert not (await c.call_tool("reindex", {"mode": "sync"})).is_error
        started = await asyncio.wait_for(messages.get(), 60)
        finished = await asyncio.wait_for(messages.get(), 60)
        assert (started.level, started.data["event"], started.data["vault"]) == ("info", "reindex_started", "main")
        assert (finished.data["event"], finished.data["status"]) == ("reindex_finished", "done")
        assert messages.empty()


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_log_notifications_on_the_2026_protocol_follow_the_per_request_opt_in(
    e2e_server: tuple[str, Harness],
) -> None:
    url, _ = e2e_server
    messages, on_log = _log_queue()
    async with Client(url, mode="auto", log_level="warning", logging_callback=on_log) as c:
        assert not (await c.call_tool("read_note", {"path": "Welcome"})).is_error  # debug: below warning
        assert (await c.call_tool("delete_note", {"path": "Ghost"})).is_error
        first = await asyncio.wait_for(messages.get(), 60)
        assert first.level == "warning" and first.data["tool"] == "delete_note"
        assert first.data["code"] == "note_not_found" and messages.empty()
    quiet, on_quiet = _log_queue()
    async with Client(url, mode="auto", logging_callback=on_quiet) as c:  # no opt-in: nothing at all
        assert (await c.call_tool("delete_note", {"path": "Ghost"})).is_error
        assert (await c.call_tool("read_note", {"path": "Ghost"})).is_error
    assert quiet.empty()


@pytest.mark.parametrize("cursor", ["-1", "-200", "abc", "1.5", " 3", "+1", "99999"])
async def test_tools_list_rejects_a_cursor_it_never_issued(e2e_server: tuple[str, Harness], cursor: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode="legacy") as c:
        with pytest.raises(MCPError) as info:
            await c.list_tools(cursor=cursor, cache_mode="bypass")
        assert info.value.error.code == types.INVALID_PARAMS
        first = await c.list_tools(cursor="0", cache_mode="bypass")
        assert first.tools and first.tools == (await c.list_tools(cache_mode="bypass")).tools
