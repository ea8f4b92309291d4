"""What an agent working on a vault meets, end to end: a real uvicorn server and the SDK's
Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok

VAULT: dict[str, str | bytes] = {
    "Archive/Trips/Kyoto.md": "# Kyoto\n\n- [ ] book the ryokan\n",
    "Projects/Launch.md": "# Launch\n\n- [ ] write docs\n",
}


async def test_a_folder_in_another_letter_case_names_the_folder_meant(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        # list_tasks answered an empty list here, as if the folder had no task.
        missed = await _error(c, "list_tasks", folder="projects")
        assert missed["code"] == "note_not_found" and missed["details"]["suggestions"] == ["Projects"]
        tasks = await _ok(c, "list_tasks", folder=missed["details"]["suggestions"][0])
        assert [t["text"] for t in tasks["items"]] == ["write docs"]
        listed = await _error(c, "list_notes", folder="archive/trips")
        assert listed["details"]["suggestions"] == ["Archive/Trips"]
        assert listed["hint"] == "Pass one of details.suggestions as the folder."


async def test_set_task_status_takes_the_status_type_list_tasks_answers(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        task = (await _ok(c, "list_tasks", note="launch", status=["todo"]))["items"][0]
        assert task["status_type"] == "todo"
        done = await _ok(
            c, "set_task_status", path="launch", line=task["line"], status="done", expected_text=task["text"]
        )
        assert done["text"].startswith("write docs ✅ ")
        assert (await _ok(c, "list_tasks", note="launch", status=["done"]))["items"][0]["line"] == task["line"]
        wrong = await _error(
            c, "set_task_status", path="launch", line=task["line"], status="finished", expected_text="x"
        )
        assert wrong["code"] == "validation_error" and "done" in wrong["message"]


async def test_find_capability_finds_backlinks_memory_and_task_ticks(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        for query, tool in (
            ("find notes linking here", "get_backlinks"),
            ("recall what I stored", "search_memory"),
            ("tick a task done", "set_task_status"),
        ):
            found = await _ok(c, "find_capability", query=query, limit=3)
            assert found["items"][0]["name"] == tool, (query, found["items"])


async def test_query_base_of_a_category_note_names_the_base_it_embeds(
    make_vault: Callable[..., Path], mode: str
) -> None:
    files = {
        **VAULT,
        "Categories/Books.md": "---\ntags: [categories]\n---\n\n![[Books.base]]\n",
        "Templates/Bases/Books.base": 'filters: file.inFolder("Projects")\nviews:\n  - type: table\n    name: All\n',
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        missed = await _error(c, "query_base", path="books")
        assert missed["details"]["bases"] == ["Templates/Bases/Books.base"]
        rows = (await _ok(c, "query_base", path=missed["details"]["bases"][0]))["rows"]
        assert [r["path"] for r in rows] == ["Projects/Launch.md"]


async def test_a_heading_given_as_one_string_is_that_heading(make_vault: Callable[..., Path], mode: str) -> None:
    files = {**VAULT, "Plan.md": "# Plan\n\n## Goals\n\nShip.\n\n## Log\n"}
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await _ok(c, "patch_note", path="plan", heading="Goals", position="append", content="Grow.")
        assert (await _ok(c, "read_note", path="plan", heading="Goals"))["content"] == "## Goals\n\nShip.\n\nGrow.\n"


async def test_an_unknown_argument_names_what_the_tool_takes(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        wrong = await _error(c, "list_tasks", path="launch")
        assert wrong["code"] == "validation_error" and "note" in wrong["details"]["accepted"]
        tasks = await _ok(c, "list_tasks", note="launch")
        assert [t["text"] for t in tasks["items"]] == ["write docs"]


async def test_a_move_onto_an_existing_note_says_what_to_do(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        taken = await _error(c, "move_note", path="kyoto", new_path="Projects/Launch")
        assert taken["code"] == "already_exists" and taken["details"]["path"] == "Projects/Launch.md"
        assert "another path" in taken["hint"]


async def test_rewriting_links_to_the_same_note_says_there_is_nothing_to_do(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        same = await _error(c, "rewrite_links", old_target="launch", new_target="Projects/Launch", dry_run=False)
        assert same["details"]["reason"] == "same_target" and "new_target" in same["hint"]


async def test_a_missing_template_names_the_templates_meant(make_vault: Callable[..., Path], mode: str) -> None:
    files = {
        **VAULT,
        "Templates/Meeting Template.md": "## Meeting\n",
        ".obsidian/templates.json": '{"folder": "Templates"}',
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        missed = await _error(c, "apply_template", template="meetng", path="Notes/Sync")
        assert missed["details"]["suggestions"][0] == "Templates/Meeting Template.md"
        assert "list_templates" in missed["hint"]
        made = await _ok(c, "apply_template", template=missed["details"]["suggestions"][0], path="Notes/Sync")
        assert made["path"] == "Notes/Sync.md"


async def test_property_edits_keep_a_templates_placeholders(make_vault: Callable[..., Path], mode: str) -> None:
    """`created: {{date}}` (Obsidian templates): an edit of another property wrote it back as
    `{{date: null}: null}`, and the note's frontmatter no longer read."""
    template = "---\ncreated: {{date}}\ntags:\n  - books\n---\n# {{title}}\n"
    vault = {"Templates/Book template.md": template}
    async with e2e(make_vault(vault), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        assert (await _ok(c, "get_properties", path="book template"))["properties"]["created"] == "{{date}}"
        await _ok(c, "add_tags", path="book template", tags=["reading"])
        assert h.read("Templates/Book template.md") == template.replace("  - books\n", "  - books\n  - reading\n")
        note = await _ok(c, "read_note", path="book template")
        assert note["frontmatter_error"] is None and note["tags"] == ["books", "reading"], note
