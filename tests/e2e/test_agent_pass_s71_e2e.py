"""What an agent working on a large zettelkasten meets, end to end: a real uvicorn server and the
SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok


async def test_a_note_named_with_a_windows_reserved_character_is_read_and_retagged(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`A* Pathfinding.md` (a real vault kept on Linux): search_text listed it, read_note refused
    it as 'reserved character', and rename_tag over the vault failed on it whole. The same for a
    name another program made with '|' (`Odd|pipe.md`, s82): read_note took 'Odd' for the note and
    'pipe' for the text shown, every other tool refused the path."""
    files = {
        "Programming/A* Pathfinding.md": "---\ntags:\n  - graphs\n---\nSearch with a heuristic.\n",
        "Programming/Dijkstra.md": "---\ntags:\n  - graphs\n---\nSee [[A* Pathfinding]].\n",
        "Programming/Odd|pipe.md": "---\ntags:\n  - graphs\n---\nA name with a bar.\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        hit = (await _ok(c, "search_text", query="heuristic"))["items"][0]
        assert (await _ok(c, "read_note", path=hit["path"]))["content"].endswith("heuristic.\n")
        args = {"old": "graphs", "new": "cs/graphs", "dry_run": False}
        token = await h.token_for("rename_tag", **args)
        assert (await _ok(c, "rename_tag", {**args, "elicit_token": token}))["files_changed"] == 3
        assert h.read("Programming/A* Pathfinding.md").startswith("---\ntags:\n  - cs/graphs\n")
        assert h.read("Programming/Odd|pipe.md").startswith("---\ntags:\n  - cs/graphs\n")
        bar = (await _ok(c, "search_text", query="bar"))["items"][0]["path"]
        assert bar == "Programming/Odd|pipe.md"
        assert (await _ok(c, "read_note", path=bar))["content"].endswith("A name with a bar.\n")
        assert (await _ok(c, "read_note", path="Programming/Odd|pipe"))["path"] == bar
        pipe = await _error(c, "create_note", path="Programming/Draft|final", content="x")
        assert pipe["details"]["reason"] == "reserved character" and "pick a name" in pipe["hint"]
        refused = await _error(c, "create_note", path="Programming/A* Variant", content="x")
        assert refused["details"]["reason"] == "reserved character" and "pick a name" in refused["hint"]
        colon = await _error(c, "create_note", path="Programming/Time: 10", content="x")
        assert colon["details"]["reason"] == "reserved character" and "pick a name" in colon["hint"]


async def test_math_and_shell_dollars_are_no_money_topic(make_vault: Callable[..., Path], mode: str) -> None:
    """Every LaTeX note of a math zettelkasten came back `sensitive: true` (the money term `$`)."""
    files = {
        "Math/Covariance.md": "# Covariance\n\nFor a random variable $X$: $Cov(X,X) = V(X)$.\n",
        "Shop/Course.md": "# Course\n\nThe random variable course costs $275.\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        found = await _ok(c, "search_text", query="random variable")
        assert {i["path"]: i["sensitive"] for i in found["items"]} == {
            "Math/Covariance.md": False,
            "Shop/Course.md": True,
        }


async def test_search_finds_a_note_by_its_alias(make_vault: Callable[..., Path], mode: str) -> None:
    """`COEP` is written only in the note's aliases: search_text found nothing."""
    files = {
        "Cross-Origin-Embedder-Policy.md": "---\naliases:\n  - COEP\n---\nA header against side channels.\n",
        "Headers.md": "# Headers\n\nSee [[Cross-Origin-Embedder-Policy|COEP]].\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        found = await _ok(c, "search_text", query="coep")
        assert [i["path"] for i in found["items"]] == ["Cross-Origin-Embedder-Policy.md", "Headers.md"]


async def test_a_foreach_naming_no_list_says_how_to_name_one(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"Cross-Origin-Embedder-Policy.md": "---\naliases: [COEP]\n---\nA header.\n"}
    find = {"id": "find", "tool": "search_properties", "args": {"filters": [{"key": "aliases", "op": "exists"}]}}

    def plan(foreach: str) -> dict[str, object]:
        tag = {"id": "tag", "tool": "add_tags", "foreach": foreach, "args": {"path": "$item", "tags": ["seen"]}}
        return {"goal": "tag the notes with aliases", "steps": [find, tag]}

    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        [problem] = (await _ok(c, "validate_plan", plan=plan("$find.items")))["problems"]
        assert "'$steps.find.items[*].path'" in problem["message"], problem
        assert (await _ok(c, "validate_plan", plan=plan("$steps.find.items[*].path")))["valid"]


async def test_suggest_links_takes_an_acronym_only_in_capitals(make_vault: Callable[..., Path], mode: str) -> None:
    files = {
        "Hardware/Controller Area Network Bus.md": "---\naliases: [CAN]\n---\nA vehicle bus.\n",
        "Postel's Law.md": "Can lead to bugs; the CAN bus is fine.\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        out = await _ok(c, "suggest_links", path="Postel's Law")
        assert [(i["mention"], i["link"]) for i in out["items"]] == [("CAN", "[[Controller Area Network Bus|CAN]]")]


async def test_find_capability_finds_the_tool_that_takes_an_alias(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"Security Architecture Review.md": "---\naliases: [SAR]\n---\nScope interviews.\n"}
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        found = await _ok(c, "find_capability", query="find a note by its alias", limit=3)
        assert found["items"][0]["name"] == "read_note", found["items"]
        assert (await _ok(c, "read_note", path="SAR"))["path"] == "Security Architecture Review.md"
