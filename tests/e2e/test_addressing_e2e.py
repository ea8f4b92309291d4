"""Notes addressed as wikilinks, end to end: a real uvicorn server and the SDK's Streamable HTTP
client in both protocol eras, the stdio transport as a subprocess, and Obsidian's own help vault."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok
from tests.real_vaults import VAULTS, needs, writable_copy

HELP = VAULTS / "obsidian-help-en"

VAULT: dict[str, str | bytes] = {
    "Projects/Launch plan.md": "---\naliases: [Kickoff]\n---\n# The launch\n\n## Goals\n\nShip. ^ship\n",
    "Projects/Plan.md": "# Plan\n",
    "Archive/Plan.md": "# Old plan\n",
    "Home.md": "See [[Launch plan#Goals|our goals]].\n",
    "Private/Launch plans.md": "Hidden.\n",
    "Private/Diary.md": "---\naliases: [Journal]\n---\nSecret.\n",
}
NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


async def test_wikilink_addresses_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(VAULT)
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        # What an agent copies out of a note works as the path.
        goals = await _ok(c, "read_note", path="[[Launch plan#Goals|our goals]]")
        assert goals["path"] == "Projects/Launch plan.md" and goals["title"] == "Launch plan"
        assert goals["content"] == "## Goals\n\nShip. ^ship\n"
        assert (await _ok(c, "read_note", path="kickoff"))["path"] == "Projects/Launch plan.md"
        assert (await _ok(c, "read_note", path="LAUNCH PLAN#^ship"))["content"] == "Ship. ^ship\n"
        backlinks = await _ok(c, "get_backlinks", path="Launch plan")
        assert backlinks["target"] == "Projects/Launch plan.md"
        assert [i["path"] for i in backlinks["items"]] == ["Home.md"]
        patched = await _ok(c, "patch_note", path="Kickoff#Goals", position="append", content="- and test")
        assert patched["path"] == "Projects/Launch plan.md" and "- and test" in h.read("Projects/Launch plan.md")
        # Failures say what to do next, and change nothing.
        before = snapshot(root)
        ambiguous = await _error(c, "read_note", path="Plan")
        assert ambiguous["code"] == "ambiguous_note"
        assert ambiguous["details"]["candidates"] == ["Archive/Plan.md", "Projects/Plan.md"]
        assert (await _error(c, "delete_note", path="plan"))["code"] == "ambiguous_note"
        missing = await _error(c, "read_note", path="Lanch plan")
        assert missing["code"] == "note_not_found" and missing["details"]["suggestions"][0] == "Projects/Launch plan.md"
        folder = await _error(c, "append_note", path="Projects", content="x")
        assert (folder["code"], folder["details"]["kind"]) == ("not_a_note", "folder")
        assert snapshot(root) == before
        # A name of existing notes is those notes for a create too: no root 'Plan.md' that would
        # capture every [[Plan]] link (issue 41, item 4); a path that names no note is created as written.
        taken = await _error(c, "create_note", path="Plan", content="root\n")
        assert taken["code"] == "ambiguous_note" and not (root / "Plan.md").exists()
        made = await _ok(c, "create_note", path="Drafts/Plan", content="new\n")
        assert made["path"] == "Drafts/Plan.md"


async def test_the_acl_hides_unreadable_notes_from_addresses_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root, index={"watch": False}, acl=NO_PRIVATE) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        journal = await _error(c, "read_note", path="Journal")  # an alias of a note the caller may not read
        assert journal["code"] == "note_not_found" and journal["details"]["suggestions"] == []
        near = await _error(c, "read_note", path="Launch planz")
        assert near["details"]["suggestions"][0] == "Projects/Launch plan.md"
        assert not [p for p in near["details"]["suggestions"] if p.startswith("Private/")]
        assert (await _error(c, "read_note", path="Private/Diary"))["code"] == "acl_denied"


async def test_an_address_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode="auto") as client:
        # The first index may still be running: names then come from the disk, so this holds either way.
        read = await client.call_tool("read_note", {"path": "[[launch plan#Goals]]"})
        assert not read.is_error and read.structured_content is not None
        assert read.structured_content["path"] == "Projects/Launch plan.md"
        assert read.structured_content["content"].startswith("## Goals")
        bad = await client.call_tool("read_note", {"path": "Plan"})
        assert bad.is_error and bad.structured_content is not None
        assert bad.structured_content["error"]["code"] == "ambiguous_note"


@needs(HELP)
async def test_obsidian_help_vault_addresses_over_http(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root)
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        links = await _ok(c, "read_note", path="[[Internal links#Link to a heading in a note]]")
        assert links["path"] == "Linking notes and files/Internal links.md" and links["title"] == "Internal links"
        assert links["content"].startswith("## Link to a heading in a note")
        assert "## Link to a block in a note" not in links["content"]
        # An alias that keeps an old path, as the help vault does for moved pages.
        assert (await _ok(c, "read_note", path="How to/Add aliases to note"))["path"] == (
            "Linking notes and files/Aliases.md"
        )
        templates = await _error(c, "read_note", path="Templates")  # two notes of that name
        assert templates["code"] == "ambiguous_note"
        assert templates["details"]["candidates"] == ["Obsidian Web Clipper/Templates.md", "Plugins/Templates.md"]
        assert (await _ok(c, "read_note", path="Plugins/Templates"))["path"] == "Plugins/Templates.md"
        close = await _error(c, "read_note", path="Internal link")
        assert "Linking notes and files/Internal links.md" in close["details"]["suggestions"]


async def test_a_new_note_in_a_folder_named_with_a_hash_over_http(make_vault: Callable[..., Path]) -> None:
    """The folder `Home#Contribute` exists: a note path through it is that folder, not a section."""
    root = make_vault({"Home.md": "# Home\n\n## Contribute\n", "Home#Contribute/a.md": "# a\n"})
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        made = await _ok(c, "create_note", path="Home#Contribute/new", content="new\n")
        assert made["path"] == "Home#Contribute/new.md" and h.read("Home#Contribute/new.md") == "new\n"
        assert (await _ok(c, "read_note", path="Home#Contribute/a"))["content"] == "# a\n"
