"""In-vault symlinks never route around the read ACL on a listing or reading surface.

Setup: `Inbox/Shortcut.md -> Private/Diary.md` (a file link), `Projects/Door -> Private/` (a
folder link), `Inbox/PlanLink.md -> Projects/Plan.md` (a link to a readable note, which stays
listed) and `Projects/Loop -> ..` (a link cycle through the vault root), with `Private` denied.
Every surface — the review_folder and summarize_note prompts, list_notes, list_folders,
resources/list and resources/read, path and folder completion — decides on where a link really
points, over HTTP with the SDK client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import Harness, e2e
from tests.sec_vault import SEC_VAULT
from tests.unit.security.test_result_filtering import DENY_PRIVATE, SECRETS

# Readable notes may link to [[Diary]] (that text is theirs); a path through a link to Private/ is not.
LEAKS = (*SECRETS, "Shortcut", "Door/", "Loop/Private", "Loop/Projects/Door")


def assert_no_leak(out: Any) -> None:
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)
    for word in LEAKS:
        assert word not in text, (word, text[:800])


def linked_vault(make_vault: Callable[..., Path]) -> Path:
    root = make_vault(SEC_VAULT)
    (root / "Inbox" / "Shortcut.md").symlink_to(root / "Private" / "Diary.md")
    (root / "Projects" / "Door").symlink_to(root / "Private", target_is_directory=True)
    (root / "Inbox" / "PlanLink.md").symlink_to(root / "Projects" / "Plan.md")
    (root / "Projects" / "Loop").symlink_to(root, target_is_directory=True)
    return root


@pytest.fixture
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Harness]]:
    async with e2e(linked_vault(make_vault), acl=DENY_PRIVATE) as pair:
        yield pair


async def tool(c: Client, name: str, **args: Any) -> dict[str, Any]:
    out = await c.call_tool(name, args)
    assert not out.is_error and out.structured_content is not None, out
    return out.structured_content


def prompt_text(result: types.GetPromptResult) -> str:
    return "\n".join(m.content.text for m in result.messages if isinstance(m.content, types.TextContent))


async def test_review_folder_prompt_never_pulls_in_a_linked_denied_note(server: tuple[str, Harness]) -> None:
    url, harness = server
    before = harness.snapshot()
    async with Client(url, mode="legacy") as c:
        for folder in ("", "Inbox", "Projects"):
            text = prompt_text(await c.get_prompt("review_folder", {"folder": folder}))
            assert_no_leak(text)
        inbox = prompt_text(await c.get_prompt("review_folder", {"folder": "Inbox"}))
        assert "Inbox/Todo.md" in inbox and "Inbox/PlanLink.md" in inbox  # a link to a readable note stays
        for folder in ("Projects/Door", "Projects/Loop/Private"):
            with pytest.raises(MCPError, match="acl_denied"):
                await c.get_prompt("review_folder", {"folder": folder})
        with pytest.raises(MCPError, match="acl_denied"):
            await c.get_prompt("summarize_note", {"path": "Inbox/Shortcut"})
    assert harness.snapshot() == before


async def test_list_notes_and_list_folders_decide_on_the_link_target(server: tuple[str, Harness]) -> None:
    url, _ = server
    async with Client(url, mode="legacy") as c:
        for folder in ("", "Inbox", "Projects"):
            listed = await tool(c, "list_notes", folder=folder, include_attachments=True)
            assert_no_leak(listed)
        everything = {i["path"] for i in (await tool(c, "list_notes"))["items"]}
        assert {"Inbox/Todo.md", "Inbox/PlanLink.md", "Projects/Plan.md"} <= everything
        assert not any(p.startswith("Projects/Loop/") for p in everything)  # the root is not entered again
        below = {i["path"] for i in (await tool(c, "list_notes", folder="Projects"))["items"]}
        assert "Projects/Loop/Welcome.md" in below  # entered once from Projects/, not round the cycle
        assert not any(p.startswith("Projects/Loop/Projects/") for p in below)
        folders = await tool(c, "list_folders")
        assert_no_leak(folders)
        counts = {f["path"]: f["notes"] for f in folders["items"]}
        assert counts["Inbox"] == 2  # Todo and PlanLink; the link to the diary is not counted
        shallow = await tool(c, "list_folders", recursive=False)
        assert_no_leak(shallow)
        assert {f["path"]: f["notes"] for f in shallow["items"]} == {"Inbox": 2, "Projects": 1}
        for folder in ("Projects/Door", "Projects/Loop/Private"):
            denied = await c.call_tool("list_notes", {"folder": folder})
            assert denied.structured_content is not None
            assert denied.structured_content["error"]["code"] == "acl_denied"


async def test_resources_list_and_read_decide_on_the_link_target(server: tuple[str, Harness]) -> None:
    url, _ = server
    async with Client(url, mode="legacy") as c:
        listed = [str(r.uri) for r in (await c.list_resources()).resources]
        assert_no_leak(listed)
        assert "vault://main/Inbox/PlanLink.md" in listed
        plan = await c.read_resource("vault://main/Inbox/PlanLink.md")
        assert isinstance(plan.contents[0], types.TextResourceContents) and "zebra" in plan.contents[0].text
        for uri in (
            "vault://main/Inbox/Shortcut.md",
            "vault://main/Projects/Door/Diary.md",
            "vault://main/Projects/Loop/Private/Diary.md",
        ):
            with pytest.raises(MCPError, match="acl_denied"):
                await c.read_resource(uri)


async def test_completion_decides_on_the_link_target(server: tuple[str, Harness]) -> None:
    url, _ = server
    ref = types.PromptReference(name="summarize_note")
    folder_ref = types.PromptReference(name="review_folder")
    async with Client(url, mode="legacy") as c:
        for typed in ("", "s", "Inbox/", "Door", "Diary", "Deep", "Loop"):
            paths = (await c.complete(ref, {"name": "path", "value": typed})).completion.values
            assert_no_leak(paths)
            folders = (await c.complete(folder_ref, {"name": "folder", "value": typed})).completion.values
            assert_no_leak(folders)
        offered = (await c.complete(ref, {"name": "path", "value": "Inbox/"})).completion.values
        assert offered == ["Inbox/PlanLink.md", "Inbox/Todo.md"]


async def test_a_reader_of_the_target_sees_the_link(make_vault: Callable[..., Path]) -> None:
    """Without a rule on Private/, the same links are listed: only the target's rules hide them."""
    async with e2e(linked_vault(make_vault)) as (url, _), Client(url, mode="legacy") as c:
        everything = {i["path"] for i in (await tool(c, "list_notes"))["items"]}
        assert {"Inbox/Shortcut.md", "Projects/Door/Diary.md", "Projects/Door/Sub/Deep.md"} <= everything
        listed = [str(r.uri) for r in (await c.list_resources()).resources]
        assert "vault://main/Inbox/Shortcut.md" in listed


async def test_refusals_through_a_link_never_name_its_target(server: tuple[str, Harness]) -> None:
    url, harness = server
    before = harness.snapshot()
    async with Client(url, mode="legacy") as c:
        for tool, args in (
            ("read_note", {"path": "Inbox/Shortcut"}),
            ("note_info", {"path": "Projects/Door/Sub/Deep"}),
            ("write_note", {"path": "Inbox/Shortcut", "content": "x", "mode": "overwrite"}),
            ("move_note", {"path": "Projects", "new_path": "Archive", "dry_run": True}),
            ("move_note", {"path": "Projects", "new_path": "Archive"}),
        ):
            result = await c.call_tool(tool, args)
            assert result.is_error and result.structured_content is not None, (tool, result)
            error = result.structured_content["error"]
            assert error["code"] == "acl_denied", (tool, error)
            assert "Private" not in json.dumps(error) and "Diary" not in json.dumps(error).replace(args["path"], ""), (
                tool,
                error,
            )
        with pytest.raises(MCPError) as refused:
            await c.get_prompt("summarize_note", {"path": "Inbox/Shortcut"})
        assert "Private" not in str(refused.value)
    assert harness.snapshot() == before


async def test_a_dangling_link_is_not_listed(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    (root / "Dangling.md").symlink_to(root / "Gone.md")
    (root / "Gone").symlink_to(root / "Nowhere", target_is_directory=True)
    async with e2e(root) as (url, _), Client(url, mode="legacy") as c:
        assert [i["path"] for i in (await tool(c, "list_notes", include_attachments=True))["items"]] == ["A.md"]
        assert (await tool(c, "list_folders"))["items"] == []
        assert [str(r.uri) for r in (await c.list_resources()).resources] == ["vault://main/A.md"]
