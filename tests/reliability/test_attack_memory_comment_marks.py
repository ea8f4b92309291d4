"""A memory write whose text holds an unpaired `%%` (U1, session 80).

Obsidian reads `%%` as the start of a comment that runs to the next `%%`, across lines, and the
memory reader does the same (493b664a: a line inside a comment is comment text). The memory
tools wrote an observation, a category, a source, a date, a relation type or a new entity's
name (its `# title`) with one `%%` as given: add_observations answered "added" with a block id,
and the observation was gone from open_nodes and the graph, with every later line of the note
(a new entity's observations; the next write then re-rendered the note with a second
`## Relations` heading after the hidden line). Now a text that would open a comment is
`validation_error` (reason `comment_marker`, naming the field) and nothing is written; a pair
(`a %% b %% c`) is written and read back as before. Through the dispatch chain and over HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e, started
from tests.e2e.calls import error, ok

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "add_observations",
        {"observations": [{"entityName": "Eve", "contents": ["50%% off"]}]},
        "observations[0].contents",
    ),
    (
        "add_observations",
        {"observations": [{"entityName": "Eve", "contents": ["c1"], "category": "c %%"}]},
        "observations[0].category",
    ),
    (
        "add_observations",
        {"observations": [{"entityName": "Eve", "contents": ["s1"], "source": "chat %%"}]},
        "observations[0].source",
    ),
    (
        "add_observations",
        {"observations": [{"entityName": "Eve", "contents": ["d1"], "date": "2026-01-02 %%"}]},
        "observations[0].date",
    ),
    ("create_relations", {"relations": [{"from": "Eve", "to": "Bob", "relationType": "knows %%"}]}, "relations[0]"),
    ("create_entities", {"entities": [{"name": "Y %%", "entityType": "person", "observations": ["y"]}]}, "entities[0]"),
    ("create_entities", {"entities": [{"name": "X", "entityType": "person", "observations": ["x %%"]}]}, "entities[0]"),
]


async def test_an_unpaired_comment_mark_is_refused_and_nothing_is_written(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as vg:
        eve = {"name": "Eve", "entityType": "person", "observations": ["first"]}
        await vg.ok("create_entities", entities=[eve, {"name": "Bob", "entityType": "person"}])
        note = root / "Memory" / "Eve.md"
        before = note.read_bytes()
        for tool, args, field in REFUSED:
            refused = await vg.err(tool, "validation_error", **args)
            assert refused["details"]["reason"] == "comment_marker", (tool, refused)
            assert refused["details"]["field"].startswith(field), (tool, refused)
            assert note.read_bytes() == before, tool
        assert sorted(p.name for p in (root / "Memory").iterdir()) == ["Bob.md", "Eve.md"]
        # a pair is no open comment: written and read back, and the note stays whole
        await vg.ok("add_observations", observations=[{"entityName": "Eve", "contents": ["a %% b %% c"]}])
        await vg.ok("add_observations", observations=[{"entityName": "Eve", "contents": ["after"]}])
        await vg.ok("create_relations", relations=[{"from": "Eve", "to": "Bob", "relationType": "knows"}])
        [entity] = (await vg.ok("open_nodes", names=["Eve"]))["entities"]
        assert [o["text"] for o in entity["observations"]] == ["first", "a %% b %% c", "after"]
        assert note.read_text(encoding="utf-8").count("## Relations") == 1


async def test_an_unpaired_comment_mark_is_a_structured_error_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with e2e(root, tool_facade={"mode": "flat"}) as (url, _), Client(url, mode="legacy") as c:  # type: ignore[arg-type]
        await ok(c, "create_entities", entities=[{"name": "Eve", "entityType": "person", "observations": ["first"]}])
        refused = await error(c, "add_observations", observations=[{"entityName": "Eve", "contents": ["50%% off"]}])
        assert refused["code"] == "validation_error" and refused["details"]["reason"] == "comment_marker", refused
        [entity] = (await ok(c, "open_nodes", names=["Eve"]))["entities"]
        assert [o["text"] for o in entity["observations"]] == ["first"]


async def test_a_capture_with_an_unpaired_comment_mark_is_refused(make_vault: Callable[..., Path]) -> None:
    """A capture is an item of the inbox note: one `%%` hid every later capture in Obsidian (and a
    capture cannot be filed as an observation holding one)."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as vg:
        await vg.ok("capture", text="first idea")
        inbox = root / "Memory" / "Inbox.md"
        before = inbox.read_bytes()
        refused = await vg.err("capture", "validation_error", text="buy 50%% off milk")
        assert refused["details"] == {"field": "text", "reason": "comment_marker"}, refused
        assert inbox.read_bytes() == before
        await vg.ok("capture", text="a %% pair %% is fine")
        listed = (await vg.ok("list_captures"))["items"]
        assert [c["text"] for c in listed] == ["first idea", "a %% pair %% is fine"]
