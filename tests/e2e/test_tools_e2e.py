"""Property, tag, graph, link and rename tools over real HTTP with the SDK client (both protocol
eras): for each tool a happy path (its effect checked on disk or through another tool,
`obsidian_url` on every file result) and a failure path (a structured error code, nothing
changed on disk).

Calls that need a human (rename_tag and rewrite_links when not a dry run) go through the token
flow of clients without elicitation: `elicit_required`, then the admin endpoint mints a token
the call is retried with. Only stable output fields are asserted (items' paths, error codes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from mcp import Client

from tests.conftest import Harness, e2e

VAULT = {
    "Welcome.md": (
        "---\ntags: [start, proj/alpha]\nstatus: active\ndue: 2024-01-01\n---\n# Welcome\n\n"
        "Hello #intro. See [[Projects/Plan]] and [[Missing note]].\n"
    ),
    "Projects/Plan.md": "---\nstatus: active\npriority: 2\n---\n# Plan\n\nBack to [[Welcome]]. #proj/alpha\n",
    "Projects/Idea.md": "# Idea\n\nLinks [[Plan]].\n",
    "Lonely.md": "# Lonely\n\nNo links.\n",
    "Broken.md": "---\nkey: [bad\n---\nbody\n",
}


class Session:
    """One SDK client on one server, with the checks every case shares."""

    def __init__(self, client: Client, url: str, harness: Harness) -> None:
        self.client = client
        self.url = url
        self.harness = harness

    async def ok(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, args)
        assert not result.is_error, result.structured_content
        assert result.structured_content is not None
        _check_urls(result.structured_content)
        return result.structured_content

    async def error(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, args)
        assert result.is_error and result.structured_content is not None, result.structured_content
        error: dict[str, Any] = result.structured_content["error"]
        return error

    async def confirmed(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """A call that needs confirmation: the token flow of clients without elicitation."""
        error = await self.error(tool, args)
        assert error["code"] == "elicit_required", error
        base = self.url.rsplit("/mcp", 1)[0]
        async with httpx2.AsyncClient() as http:
            minted = await http.post(f"{base}/admin/confirm", json={"args_hash": error["details"]["args_hash"]})
        assert minted.status_code == 200, minted.text
        return await self.ok(tool, {**args, "elicit_token": minted.json()["token"]})

    def read(self, rel: str) -> str:
        return self.harness.read(rel)


def _check_urls(value: Any) -> None:
    """Every file result (a mapping with a `path`) carries the obsidian:// URL of that path; an
    unresolved outlink the URL that creates its note."""
    if isinstance(value, dict):
        if isinstance(value.get("path"), str) and "title" in value:
            url = value.get("obsidian_url")
            assert isinstance(url, str), value
            if value.get("resolved") is False:
                assert url.startswith("obsidian://new?vault="), value
                assert url.endswith("&file=" + quote(value["path"].removesuffix(".md"), safe="")), value
            else:
                assert url.startswith("obsidian://open?vault="), value
                assert url.endswith("&file=" + quote(value["path"], safe="")), value
        for inner in value.values():
            _check_urls(inner)
    elif isinstance(value, list):
        for inner in value:
            _check_urls(inner)


def _paths(out: dict[str, Any]) -> list[str]:
    return [i["path"] for i in out["items"]]


# -- happy paths ---------------------------------------------------------------------------------


async def _get_properties(s: Session) -> None:
    out = await s.ok("get_properties", {"path": "Welcome"})
    assert out["path"] == "Welcome.md"
    assert out["properties"] == {"tags": ["start", "proj/alpha"], "status": "active", "due": "2024-01-01"}


async def _set_properties(s: Session) -> None:
    out = await s.ok("set_properties", {"path": "Lonely", "properties": {"due": "2024-02-01", "owner": "me"}})
    assert out["properties"] == {"due": "2024-02-01", "owner": "me"}
    assert s.read("Lonely.md").startswith("---\ndue: 2024-02-01\nowner: me\n---\n# Lonely\n")
    # Written as a YAML date, so it is still a date to property search (before: a string).
    early = await s.ok("search_properties", {"filters": [{"key": "due", "op": "<", "value": "2024-06-01"}]})
    assert sorted(_paths(early)) == ["Lonely.md", "Welcome.md"]
    keys = {i["key"]: i for i in (await s.ok("list_properties", {}))["items"]}
    assert keys["due"]["type"] == "date"


async def _delete_property(s: Session) -> None:
    out = await s.ok("delete_property", {"path": "Projects/Plan", "key": "priority"})
    assert out["properties"] == {"status": "active"}
    assert s.read("Projects/Plan.md").startswith("---\nstatus: active\n---\n# Plan\n")


async def _add_tags(s: Session) -> None:
    out = await s.ok("add_tags", {"path": "Lonely", "tags": ["new/tag"]})
    assert out["properties"]["tags"] == ["new/tag"]
    assert _paths(await s.ok("search_tags", {"tags": ["new"]})) == ["Lonely.md"]


async def _remove_tags(s: Session) -> None:
    out = await s.ok("remove_tags", {"path": "Welcome", "tags": ["#start"]})
    assert out["properties"]["tags"] == ["proj/alpha"]
    assert "tags: [proj/alpha]\n" in s.read("Welcome.md")
    assert (await s.ok("search_tags", {"tags": ["start"]}))["items"] == []


async def _rename_tag(s: Session) -> None:
    before = s.harness.snapshot()
    preview = await s.ok("rename_tag", {"old": "proj/alpha", "new": "proj/beta", "dry_run": True})
    assert sorted(_paths(preview)) == ["Projects/Plan.md", "Welcome.md"]
    assert s.harness.snapshot() == before
    await s.confirmed("rename_tag", {"old": "proj/alpha", "new": "proj/beta", "dry_run": False})
    assert "#proj/beta" in s.read("Projects/Plan.md") and "tags: [start, proj/beta]" in s.read("Welcome.md")
    assert sorted(_paths(await s.ok("search_tags", {"tags": ["proj/beta"]}))) == ["Projects/Plan.md", "Welcome.md"]


async def _get_outlinks(s: Session) -> None:
    out = await s.ok("get_outlinks", {"path": "Welcome"})
    found = [(i["path"], i["resolved"]) for i in out["items"]]
    assert found == [("Projects/Plan.md", True), ("Missing note.md", False)]
    assert out["items"][0]["text"] == "Hello #intro. See [[Projects/Plan]] and [[Missing note]]."


async def _get_backlinks(s: Session) -> None:
    out = await s.ok("get_backlinks", {"path": "Welcome"})
    assert [(i["path"], i["text"]) for i in out["items"]] == [("Projects/Plan.md", "Back to [[Welcome]]. #proj/alpha")]


async def _graph_neighbors(s: Session) -> None:
    out = await s.ok("graph_neighbors", {"path": "Welcome", "depth": 2})
    assert {(i["path"], i["distance"]) for i in out["items"]} == {("Projects/Plan.md", 1), ("Projects/Idea.md", 2)}


async def _find_broken_links(s: Session) -> None:
    out = await s.ok("find_broken_links", {"limit": 10})
    assert [(i["path"], i["target"]) for i in out["items"]] == [("Welcome.md", "Missing note")]


async def _find_orphans(s: Session) -> None:
    assert _paths(await s.ok("find_orphans", {})) == ["Broken.md", "Lonely.md"]


async def _rewrite_links(s: Session) -> None:
    before = s.harness.snapshot()
    preview = await s.ok("rewrite_links", {"old_target": "Missing note", "new_target": "Lonely"})
    assert _paths(preview) == ["Welcome.md"] and s.harness.snapshot() == before
    await s.confirmed("rewrite_links", {"old_target": "Missing note", "new_target": "Lonely", "dry_run": False})
    assert "See [[Projects/Plan]] and [[Lonely]]." in s.read("Welcome.md")
    assert (await s.ok("find_broken_links", {}))["items"] == []
    assert _paths(await s.ok("get_backlinks", {"path": "Lonely"})) == ["Welcome.md"]


async def _rename_note(s: Session) -> None:
    before = s.harness.snapshot()
    taken = await s.error("rename_note", {"path": "Projects/Plan", "new_path": "Idea"})
    assert taken["code"] == "already_exists", taken
    assert s.harness.snapshot() == before
    out = await s.ok("rename_note", {"path": "Projects/Plan", "new_path": "Roadmap"})
    assert out["path"] == "Projects/Roadmap.md"
    assert sorted(_paths(out)) == ["Projects/Idea.md", "Welcome.md"]
    assert not (s.harness.root / "Projects/Plan.md").exists()
    assert "See [[Projects/Roadmap]] and" in s.read("Welcome.md")
    assert s.read("Projects/Idea.md") == "# Idea\n\nLinks [[Roadmap]].\n"
    assert sorted(_paths(await s.ok("get_backlinks", {"path": "Projects/Roadmap"}))) == [
        "Projects/Idea.md",
        "Welcome.md",
    ]


@dataclass(frozen=True)
class Case:
    tool: str
    happy: Callable[[Session], Awaitable[None]]
    bad_args: dict[str, Any]
    code: str


CASES = [
    Case("get_properties", _get_properties, {"path": "Nope"}, "note_not_found"),
    Case("set_properties", _set_properties, {"path": "Broken", "properties": {"a": 1}}, "validation_error"),
    Case("delete_property", _delete_property, {"path": "Broken", "key": "key"}, "validation_error"),
    Case("add_tags", _add_tags, {"path": "Lonely", "tags": ["bad tag"]}, "validation_error"),
    Case("remove_tags", _remove_tags, {"path": "Broken", "tags": ["x"]}, "validation_error"),
    Case("rename_tag", _rename_tag, {"old": "proj/alpha", "new": "bad tag", "dry_run": False}, "validation_error"),
    Case("get_outlinks", _get_outlinks, {"path": "Nope"}, "note_not_found"),
    Case("get_backlinks", _get_backlinks, {"path": "../Welcome"}, "path_invalid"),
    Case("graph_neighbors", _graph_neighbors, {"path": "Welcome", "depth": 0}, "validation_error"),
    Case("find_broken_links", _find_broken_links, {"limit": 0}, "validation_error"),
    Case("find_orphans", _find_orphans, {"folder": "../up"}, "path_invalid"),
    Case("find_orphans", _find_orphans, {"folder": "No such folder"}, "note_not_found"),
    Case("find_broken_links", _find_broken_links, {"folder": "Welcome.md"}, "note_not_found"),
    Case("rewrite_links", _rewrite_links, {"old_target": "Missing note", "new_target": "../Out"}, "path_invalid"),
    Case("rename_note", _rename_note, {"path": "Projects/Nope", "new_path": "Other"}, "note_not_found"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.tool for c in CASES])
async def test_tool_happy_and_failure_paths_over_http(make_vault: Callable[..., Path], case: Case, mode: str) -> None:
    # The confirmed cases approve through the admin endpoint, which auth "none" serves only when asked.
    local = {"confirmation": {"allow_local_http_confirm": True}}
    async with e2e(make_vault(VAULT), **local) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            session = Session(client, url, harness)
            before = harness.snapshot()
            error = await session.error(case.tool, case.bad_args)
            assert error["code"] == case.code, error
            assert harness.snapshot() == before
            await case.happy(session)
