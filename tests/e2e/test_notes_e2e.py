"""The main note flows end to end: real uvicorn, the SDK's Streamable HTTP client, both protocol eras."""

from __future__ import annotations

from typing import Any

from mcp import Client

from tests.conftest import Harness, snapshot
from tests.e2e.calls import ok as _ok


async def _code(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error and result.structured_content is not None
    return str(result.structured_content["error"]["code"])


async def test_note_lifecycle_over_http(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, h = e2e_server
    async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
        made = await _ok(c, "create_note", path="Inbox/Idea", content="# Idea\n\n## Log\n\nstart\n")
        assert made["obsidian_url"].endswith("Inbox%2FIdea.md")
        await _ok(c, "append_note", path="Inbox/Idea", content="tail\n")
        await _ok(c, "prepend_note", path="Inbox/Idea", content="top\n")
        await _ok(c, "patch_note", path="Inbox/Idea", heading=["Idea", "Log"], position="append", content="- more")
        read = await _ok(c, "read_note", path="Inbox/Idea", heading=["Log"])
        assert "- more" in read["content"]
        written = await _ok(
            c, "write_note", path="Inbox/Idea", content="replaced\n", mode="overwrite", expected_etag=read["etag"]
        )
        assert h.read("Inbox/Idea.md") == "replaced\n" and written["created"] is False
        await _ok(c, "copy_note", path="Inbox/Idea", new_path="Inbox/Idea 2")
        listed = await _ok(c, "list_notes", folder="Inbox")
        assert [i["path"] for i in listed["items"]] == ["Inbox/Idea 2.md", "Inbox/Idea.md"]
        deleted = await _ok(c, "delete_note", path="Inbox/Idea 2")
        assert deleted["trash_path"] == ".trash/Inbox/Idea 2.md" and deleted["title"] == "Idea 2"
        assert deleted["obsidian_url"].endswith("&file=Inbox%2FIdea%202.md")
        folder = await _ok(c, "create_folder", path="Inbox/Sub")
        assert folder["obsidian_url"].endswith("&file=Inbox%2FSub")
        folders = await _ok(c, "list_folders", folder="Inbox")
        assert [(f["path"], f["obsidian_url"].rsplit("=", 1)[1]) for f in folders["items"]] == [
            ("Inbox/Sub", "Inbox%2FSub")
        ]
        unique = await _ok(c, "create_note", path="Inbox/Idea", content="again\n", if_exists="unique")
        assert unique["path"] == "Inbox/Idea 1.md"
        several = await _ok(c, "read_notes", paths=["Inbox/Idea", "Welcome"])
        assert [i["path"] for i in several["items"]] == ["Inbox/Idea.md", "Welcome.md"]


async def test_note_failures_over_http_change_nothing(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, h = e2e_server
    before = snapshot(h.root)
    async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
        assert await _code(c, "create_note", path="Welcome", content="x") == "already_exists"
        assert (
            await _code(c, "write_note", path="Welcome", content="x", mode="overwrite", expected_etag="0") == "conflict"
        )
        assert await _code(c, "patch_note", path="Welcome", heading=["Nope"], content="x") == "validation_error"
        assert await _code(c, "delete_note", path="Ghost") == "note_not_found"
        assert await _code(c, "copy_note", path="Welcome", new_path="../escape") == "path_invalid"
        assert await _code(c, "bulk_create_notes", notes=[{"path": "A"}, {"path": "Welcome"}]) == "already_exists"
        assert (
            await _code(c, "bulk_create_notes", notes=[{"path": "New/A"}, {"path": "Welcome.md/B"}]) == "path_invalid"
        )
        assert (
            await _code(c, "copy_note", path="Welcome", new_path="Projects/Plan", overwrite=True) == "elicit_required"
        )
        assert (
            await _code(c, "write_note", path="Nope", content="x", mode="append", expected_etag="0" * 32)
            == "note_not_found"
        )
    assert snapshot(h.root) == before
