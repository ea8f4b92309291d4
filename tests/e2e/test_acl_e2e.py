"""The path ACL end to end: a real server over HTTP, the SDK client in both protocol eras.

A representative subset of the in-process attack suite (tests/unit/security/test_paths_attack.py):
hostile paths, hidden folders, the worked example, denied destinations of moves and bulk
creates, the read-only kill switch — each asserts the error code and that nothing changed on
disk. Resources, prompts and completion must not reveal a denied note either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok
from tests.sec_vault import SEC_VAULT, WORKED_ACL

DENY_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


HOSTILE_OVER_HTTP = [
    ("../outside", "path_invalid"),
    ("%2e%2e/outside", "path_invalid"),
    ("%c0%ae%c0%ae/outside", "path_invalid"),
    ("Inbox\\..\\..\\outside", "path_invalid"),
    ("/etc/passwd", "path_invalid"),
    ("C:/Windows/x", "path_invalid"),
    ("//server/share/x", "path_invalid"),
    ("\u00c0\u00ae\u00c0\u00ae/outside", "path_invalid"),
    (".obsidian/app.json", "acl_denied"),
    (".git/config", "acl_denied"),
    (".trash/x", "acl_denied"),
]


async def test_hostile_paths_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(SEC_VAULT)
    async with e2e(root) as (url, _), Client(url, mode=mode) as c:
        before = snapshot(root)
        for path, code in HOSTILE_OVER_HTTP:
            assert (await _error(c, "create_note", path=path, content="pwned"))["code"] == code, path
            assert (await _error(c, "read_note", path=path))["code"] == code, path
            moved = await _error(c, "move_note", path="Inbox/Todo", new_path=path)
            assert moved["code"] == code, path
        assert snapshot(root) == before


async def test_worked_example_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(SEC_VAULT)
    async with e2e(root, acl=WORKED_ACL) as (url, h), Client(url, mode=mode) as c:
        await h.indexed()
        before = snapshot(root)
        assert (await _ok(c, "read_note", path="Projects/Plan"))["title"] == "Plan"
        denied = await _error(c, "read_note", path="Private/Diary")
        assert denied["code"] == "acl_denied"
        assert (denied["details"]["path"], denied["details"]["op"]) == ("Private/Diary.md", "read")
        wrote = await _error(c, "write_note", path="Projects/Plan", content="x", mode="overwrite")
        assert (wrote["code"], wrote["details"]["op"]) == ("acl_denied", "write")
        moved = await _error(c, "move_note", path="Inbox/Todo", new_path="Private/Todo")
        assert (moved["code"], moved["details"]["path"]) == ("acl_denied", "Private/Todo.md")
        bulk = await _error(
            c, "bulk_create_notes", notes=[{"path": "Inbox/A", "content": "a"}, {"path": "Projects/B", "content": "b"}]
        )
        assert bulk["code"] == "acl_denied"
        assert snapshot(root) == before
        listed = await _ok(c, "list_notes")
        assert {i["path"] for i in listed["items"]} == {"Inbox/Todo.md", "Projects/Plan.md", "Projects/Notes/Idea.md"}
        made = await _ok(c, "create_note", path="Inbox/Fresh", content="fresh\n")
        assert made["path"] == "Inbox/Fresh.md" and h.read("Inbox/Fresh.md") == "fresh\n"
        decision = await _ok(c, "inspect_acl", path="Private/Diary.md", op="read")
        assert (decision["allowed"], decision["rule"]) == (False, "prefix_rules: Private read=deny")


async def test_read_only_vault_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(SEC_VAULT)
    async with e2e(root, acl={"read_only": True}) as (url, _), Client(url, mode=mode) as c:
        before = snapshot(root)
        refused = await _error(c, "create_note", path="Inbox/New", content="x")
        assert (refused["code"], refused["details"]["read_only"]) == ("forbidden", True)
        assert (await _error(c, "delete_note", path="Inbox/Todo"))["code"] == "forbidden"
        assert (await _ok(c, "read_note", path="Inbox/Todo"))["title"] == "Todo"
        assert snapshot(root) == before


async def test_resources_prompts_and_completion_hide_denied_notes(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(SEC_VAULT)
    async with e2e(root, acl=DENY_PRIVATE) as (url, h), Client(url, mode=mode) as c:
        await h.indexed()
        uris = {str(r.uri) for r in (await c.list_resources()).resources}
        assert "vault://main/Projects/Plan.md" in uris
        assert not any("Private" in u for u in uris)
        with pytest.raises(MCPError):
            await c.read_resource("vault://main/Private/Diary.md")
        with pytest.raises(MCPError):
            await c.get_prompt("summarize_note", {"path": "Private/Diary"})
        with pytest.raises(MCPError):
            await c.get_prompt("review_folder", {"folder": "Private"})
        whole = await c.get_prompt("review_folder", {"folder": ""})
        body = whole.messages[0].content
        assert isinstance(body, types.TextContent) and "Projects/Plan.md" in body.text
        assert "Private" not in body.text and "Confidential" not in body.text
        ref = types.PromptReference(name="summarize_note")
        offered = (await c.complete(ref, {"name": "path", "value": "d"})).completion.values
        assert not any("Private" in v for v in offered)
        folders = await c.complete(types.PromptReference(name="review_folder"), {"name": "folder", "value": "Pri"})
        assert not any("Private" in v for v in folders.completion.values)


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_denied_note_cannot_be_subscribed_to(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    async with e2e(root, acl=DENY_PRIVATE) as (url, _), Client(url, mode="legacy") as c:
        with pytest.raises(MCPError):
            await c.subscribe_resource("vault://main/Private/Diary.md")
        await c.subscribe_resource("vault://main/Projects/Plan.md")
