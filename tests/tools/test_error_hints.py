"""Error hints that lead somewhere: a validation error names describe_capability (which describes
every tool, advertised or not), and a heading that is not there lists the ones that are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.policy.visibility import LEAN
from tests.conftest import started

PLAN = "# Plan\n\n## Goals\n\n- ship\n\n## Risks\n\n### Budget\n\nTight.\n"


async def test_a_validation_error_points_at_describe_capability(make_vault: Callable[..., Path]) -> None:
    assert "rename_tag" not in LEAN  # outside the default list: tools/list does not describe it
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        error = await vg.err("rename_tag", "validation_error", old="x")
        assert 'describe_capability {"name": "rename_tag"}' in error["hint"]
        assert "tools/list" not in error["hint"]
        described = await vg.ok("describe_capability", name="rename_tag")
        assert "new" in described["input_schema"]["properties"]


async def test_patch_note_with_an_unknown_heading_lists_the_headings_there(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Plan.md": PLAN})) as vg:
        error = await vg.err("patch_note", "validation_error", path="Plan", heading=["Timeline"], content="x")
        details = error["details"]
        assert details["reason"] == "not_found" and details["headings"] == ["Plan", "Goals", "Risks", "Budget"]
        assert "'Goals'" in error["message"] and "details.headings" in error["hint"]
        nested = await vg.err("patch_note", "validation_error", path="Plan", heading=["Risks", "Cost"], content="x")
        assert nested["details"]["headings"] == ["Budget"] and "under 'Risks'" in nested["message"]
        assert vg.read("Plan.md") == PLAN


async def test_already_exists_says_what_to_do(make_vault: Callable[..., Path]) -> None:
    """A move or rename onto an existing note answered already_exists 'something already exists at'
    with hint null: nothing said to pick another path or look at what is there."""
    async with started(make_vault({"Plan.md": PLAN, "Inbox/b.md": "b\n", "Inbox/Index.md": "i\n"})) as vg:
        for tool, args in (
            ("rename_note", {"path": "Inbox/b", "new_path": "Index"}),
            ("move_note", {"path": "Inbox/b", "new_path": "Plan"}),
            ("create_note", {"path": "Plan", "content": "x"}),
            ("copy_note", {"path": "Inbox/b", "new_path": "Inbox/Index"}),
        ):
            error = await vg.err(tool, "already_exists", **args)
            assert error["hint"] and "details.path" in error["hint"], (tool, error)
        await vg.ok("add_bookmark", type="file", path="Plan")
        twice = await vg.err("add_bookmark", "already_exists", type="file", path="Plan")
        assert "list_bookmarks" in twice["hint"]
        assert vg.read("Plan.md") == PLAN and vg.read("Inbox/b.md") == "b\n"


async def test_a_change_to_the_same_place_says_there_is_nothing_to_do(make_vault: Callable[..., Path]) -> None:
    """rewrite_links with old_target and new_target naming one note, or a move to where the note
    is, answered path_invalid with the hint about relative paths and forward slashes."""
    async with started(make_vault({"Plan.md": PLAN, "Recipes/Tart.md": "See [[Plan]].\n"})) as vg:
        await vg.indexed()
        same = await vg.err("rewrite_links", "path_invalid", old_target="Plan", new_target="plan", dry_run=False)
        assert same["details"]["reason"] == "same_target" and "forward slashes" not in same["hint"]
        moved = await vg.err("move_note", "path_invalid", path="Recipes/Tart", new_path="Recipes/Tart")
        assert moved["details"]["reason"] == "same_path" and "forward slashes" not in moved["hint"]
        assert vg.read("Recipes/Tart.md") == "See [[Plan]].\n"


async def test_query_syntax_errors_say_how_to_write_it(make_vault: Callable[..., Path]) -> None:
    """search_text's operator errors, search_regex's bad pattern and a .base's bad YAML answered
    with hint null (U3's finding, s70): nothing said what to write instead."""
    async with started(make_vault({"Rock.md": "rock and roll\n"})) as vg:
        await vg.indexed()
        for query, says in (
            ("rock AND", "Put a word after AND"),
            ("rock NOT", "after NOT"),
            ("rock OR", "each side of OR"),
        ):
            error = await vg.err("search_text", "query_syntax_error", query=query)
            assert says in error["hint"], (query, error)
        quoted = await vg.ok("search_text", query='rock "and"')  # the hint's way out works
        assert [i["path"] for i in quoted["items"]] == ["Rock.md"]
        bad = await vg.err("search_regex", "query_syntax_error", pattern="roll (")
        assert bad["details"]["position"] == 6 and "backslash" in bad["hint"]
        escaped = await vg.ok("search_regex", pattern=r"and \(?roll")
        assert [i["path"] for i in escaped["items"]] == ["Rock.md"]
        yaml = await vg.err("query_base", "bases_syntax_error", yaml="filters:\n  and:\n - a\n\tb: c\n")
        assert yaml["message"].startswith("invalid YAML") and "details.line" in yaml["hint"]
        assert "line" in yaml["details"]
