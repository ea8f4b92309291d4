"""query_base through the dispatch chain on a purpose-built library vault (tests/tools/obsidian/
bases_vault.py); every expected row, group and summary is computed by hand from that vault."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.tools.obsidian.bases_vault import BASES_VAULT


@pytest.fixture
async def lib(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(BASES_VAULT)) as harness:
        await harness.indexed()
        yield harness


BACKLINK_COUNT = """\
formulas:
  n: file.backlinks.length
views:
  - {name: v, order: [formula.n], filters: file.name == "Dune.md"}
"""


def names(out: dict[str, Any]) -> list[str]:
    return [row["values"]["file.name"]["value"] for row in out["rows"]]


def col(out: dict[str, Any], column: str) -> list[Any]:
    return [row["values"][column]["value"] for row in out["rows"]]


@pytest.mark.covers("query_base", "success")
async def test_table_view_sort_formulas_summaries(lib: Harness) -> None:
    out = await lib.ok("query_base", path="Library.base")
    assert out["view"] == "All" and out["view_type"] == "table"
    assert out["views"] == ["All", "By genre", "Old", "Backlinked", "Custom", "Here"]
    assert names(out) == ["Dune.md", "Foundation.md", "Emma.md", "Secret.md", "Draft.md"]
    assert col(out, "rating") == [5, 4, 3, 1, None]
    assert col(out, "formula.label") == ["Dune (1965)", "Foundation (1951)", "Emma (1815)", "Secret ()", "Draft ()"]
    assert col(out, "formula.ppp") == [2.42, 2.94, 0.84, None, None]
    assert out["columns"][1] == {"id": "rating", "name": "Stars"}
    assert out["columns"][2] == {"id": "formula.label", "name": "Label"}
    assert out["summaries"]["rating"] == {"summary": "Average", "value": {"type": "number", "value": 3.25}}
    assert out["summaries"]["formula.ppp"]["value"]["value"] == 2.94
    assert out["rows"][0]["obsidian_url"].startswith("obsidian://open")
    assert out["rows"][0]["path"] == "Books/Dune.md" and out["rows"][0]["title"] == "Dune"
    assert out["matched"] == out["total"] == 5 and out["errors"] == []


async def test_grouped_view_with_group_summaries(lib: Harness) -> None:
    out = await lib.ok("query_base", path="Library.base", view="By genre")
    groups = out["groups"]
    assert [g["key"]["value"] for g in groups] == ["classic", "scifi", None]
    assert [g["count"] for g in groups] == [1, 2, 2]
    assert names(out) == ["Emma.md", "Dune.md", "Foundation.md", "Draft.md", "Secret.md"]
    assert [row["group"] for row in out["rows"]] == [0, 1, 1, 2, 2]
    assert out["group_count"] == 3 and [g["index"] for g in groups] == [0, 1, 2]
    page = await lib.ok("query_base", path="Library.base", view="By genre", limit=2, cursor=None)
    assert [g["index"] for g in page["groups"]] == [0, 1] and page["group_count"] == 3
    assert [g["summaries"]["price"]["value"]["value"] for g in groups] == [4.0, pytest.approx(17.49), 100]
    assert [g["summaries"]["read"]["value"]["value"] for g in groups] == [1, 1, 0]
    assert out["summaries"]["price"]["value"]["value"] == pytest.approx(121.49)
    assert out["summaries"]["read"] == {"summary": "Checked", "value": {"type": "number", "value": 2}}


async def test_view_filter_limit_backlinks_custom_summary_and_this(lib: Harness) -> None:
    old = await lib.ok("query_base", path="Library.base", view="Old")
    assert names(old) == ["Emma.md"] and old["matched"] == 3 and old["total"] == 1
    assert old["view_type"] == "cards" and old["view_settings"] == {"cardSize": 200}
    assert col(old, "formula.age") == [210]
    linked = await lib.ok("query_base", path="Library.base", view="Backlinked")
    assert names(linked) == ["Dune.md", "Emma.md", "Foundation.md"]
    dune_backlinks = [v["value"]["path"] for v in linked["rows"][0]["values"]["file.backlinks"]["value"]]
    assert sorted(dune_backlinks) == [
        "Books/Emma.md",
        "Books/Foundation.md",
        "Notes/Reading list.md",
        "Private/Secret.md",
    ]
    custom = await lib.ok("query_base", path="Library.base", view="Custom")
    assert custom["summaries"]["rating"] == {"summary": "top", "value": {"type": "number", "value": 5}}
    here = await lib.ok("query_base", path="Library.base", view="Here")  # this = Library.base, folder ''
    assert names(here) == ["Draft.md", "Dune.md", "Emma.md", "Foundation.md"]


async def test_embedded_block_this_is_the_note(lib: Harness) -> None:
    out = await lib.ok("query_base", path="Notes/Reading list", block=0)
    assert out["view"] == "Linked"
    assert names(out) == ["Emma.md", "Dune.md"]
    assert col(out, "rating") == [3, 5]


async def test_inline_yaml_pagination_and_this_argument(lib: Harness) -> None:
    yaml = (
        'filters: file.inFolder("Books")\nviews:\n  - type: table\n    order: [file.name]\n'
        "    sort: [{property: file.name, direction: DESC}]\n"
    )
    first = await lib.ok("query_base", yaml=yaml, limit=3)
    assert names(first) == ["Foundation.md", "Emma.md", "Dune.md"] and first["next_cursor"]
    second = await lib.ok("query_base", yaml=yaml, limit=3, cursor=first["next_cursor"])
    assert names(second) == ["Draft.md"] and second["next_cursor"] is None
    mine = await lib.ok("query_base", yaml="filters: file.hasLink(this)\n", this="Books/Dune.md")
    assert names(mine) == ["Emma.md", "Foundation.md", "Reading list.md", "Secret.md"]
    files = await lib.ok(
        "query_base", yaml='filters: file.ext == "png"\nviews:\n  - type: cards\n    order: [file.name, file.size]\n'
    )
    assert names(files) == ["cover.png"] and col(files, "file.size") == [12]
    embeds = await lib.ok("query_base", yaml="filters: file.embeds.length > 0\n")
    assert [r["path"] for r in embeds["rows"]] == ["People/Frank Herbert.md"]
    authors = await lib.ok("query_base", yaml='filters: author == link("Frank Herbert")\n')
    assert [r["path"] for r in authors["rows"]] == ["Books/Dune.md"]


async def test_read_permission_hides_denied_notes_everywhere(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
    async with started(make_vault(BASES_VAULT), acl=acl) as vg:
        await vg.indexed()
        out = await vg.ok("query_base", path="Library.base")
        assert names(out) == ["Dune.md", "Foundation.md", "Emma.md", "Draft.md"]
        assert out["summaries"]["rating"]["value"]["value"] == 4.0  # (5 + 4 + 3) / 3, not 3.25
        grouped = await vg.ok("query_base", path="Library.base", view="By genre")
        assert [g["count"] for g in grouped["groups"]] == [1, 2, 1]
        assert grouped["summaries"]["price"]["value"]["value"] == pytest.approx(21.49)
        linked = await vg.ok("query_base", path="Library.base", view="Backlinked")
        dune = [v["value"]["path"] for v in linked["rows"][0]["values"]["file.backlinks"]["value"]]
        assert "Private/Secret.md" not in dune and len(dune) == 3
        count = await vg.ok(
            "query_base",
            yaml=BACKLINK_COUNT,
        )
        assert col(count, "formula.n") == [3]
        await vg.err("query_base", "acl_denied", yaml="filters: 'true'\n", this="Private/Secret.md")


@pytest.mark.covers("query_base", "failure")
async def test_failures_are_structured_and_change_nothing(lib: Harness) -> None:
    before = lib.snapshot()
    err = await lib.err("query_base", "bases_syntax_error", yaml="filters:\n  and:\n    - 'rating > '\n")
    assert err["details"]["line"] == 3 and err["details"]["token"] == "end of expression"
    assert err["details"]["at"] == "filters.and[0]" and err["details"]["expression"] == "rating > "
    err = await lib.err("query_base", "bases_syntax_error", yaml="formulas:\n  a: formula.b + 1\n  b: formula.a\n")
    assert err["details"]["cycle"] == ["a", "b", "a"]
    err = await lib.err("query_base", "bases_syntax_error", yaml="filters: nosuch(1)\n")
    assert err["details"]["token"] == "nosuch"
    err = await lib.err("query_base", "bases_syntax_error", yaml="views: [\n")
    assert err["details"]["at"] == "(yaml)" and "line" in err["details"]
    await lib.err("query_base", "bases_syntax_error", yaml="views:\n  - summaries: {rating: Bogus}\n")
    await lib.err("query_base", "bases_syntax_error", yaml="filters: '" + "(" * 5000 + "1" + ")" * 5000 + "'\n")
    block = await lib.err("query_base", "bases_syntax_error", path="Notes/Reading list.md", block=1)
    assert block["details"]["line"] == 15  # the line in the note (the block starts on line 14)
    await lib.err("query_base", "validation_error", path="Notes/Reading list.md", block=2)
    await lib.err("query_base", "validation_error", path="Library.base", view="Nope")
    await lib.err("query_base", "validation_error")
    await lib.err("query_base", "validation_error", path="Library.base", yaml="filters: 'true'")
    await lib.err("query_base", "note_not_found", path="Missing.base")
    await lib.err("query_base", "note_not_found", path="Nowhere")
    await lib.err("query_base", "path_invalid", path="../outside.base")
    lib.app.settings.search.bases_max_steps = 1000
    heavy = "formulas:\n  f: 'LIST.map(LIST.map(value * 2))'\nviews:\n  - {name: v, order: [formula.f]}\n"
    heavy = heavy.replace("LIST", "[1,2,3,4,5,6,7,8,9,10]")
    busy = await lib.err("query_base", "compute_budget_exceeded", yaml=heavy)
    assert busy["details"]["max_steps"] == 1000
    assert lib.snapshot() == before


async def test_evaluation_errors_are_reported_per_cell(lib: Harness) -> None:
    out = await lib.ok(
        "query_base",
        yaml='filters: file.inFolder("Books")\nformulas: {n: number(genre)}\nviews: [{order: [file.name, formula.n]}]',
    )
    assert col(out, "formula.n") == [None, None, None, None]
    assert out["errors"][0]["at"] == "formula.n" and "not a number" in out["errors"][0]["message"]


@pytest.mark.covers("query_base", "failure")
async def test_a_number_or_date_as_a_filter_is_a_syntax_error(lib: Harness) -> None:
    """The Bases syntax takes a filter statement as a string or an and/or/not object: `filters: 12`
    (a YAML number) was read as the expression 12, true for every note. Now bases_syntax_error at
    its place; quoted, '12' is a statement as any other, and `true` spells one."""
    before = lib.snapshot()
    every = await lib.ok("query_base", yaml="filters: 'true'\n")
    for yaml, at, found in (
        ("filters: 12\n", "filters", "a number"),
        ("filters:\n  and:\n    - 'rating > 1'\n    - 2.5\n", "filters.and[1]", "a number"),
        ("views:\n  - name: v\n    filters: 2024-01-01\n", "views[0].filters", "a date"),
    ):
        err = await lib.err("query_base", "bases_syntax_error", yaml=yaml)
        assert (err["details"]["at"], err["details"]["found"]) == (at, found), yaml
        assert "line" in err["details"]
    quoted = await lib.ok("query_base", yaml="filters: '12'\n")
    assert quoted["total"] == every["total"] > 0
    assert (await lib.ok("query_base", yaml="filters: true\n"))["total"] == every["total"]
    assert (await lib.ok("query_base", yaml="filters: false\n"))["total"] == 0
    assert lib.snapshot() == before


@pytest.mark.covers("query_base", "success")
async def test_yaml_null_in_any_spelling_is_no_filter_and_no_views(lib: Harness) -> None:
    """YAML's null is `null`, `Null`, `NULL`, `~` or nothing (Obsidian reads .base files with a
    YAML 1.2 parser): each is no filter and no views. `Null` and `NULL` were read as the text of
    an expression (a bases_syntax_error or a filter), and `views: ~` as a views value that is no list."""
    every = await lib.ok("query_base", yaml="filters: 'true'\n")
    for spelling in ("null", "Null", "NULL", "~", ""):
        out = await lib.ok("query_base", yaml=f"filters: {spelling}\nviews: {spelling}\n")
        assert out["total"] == every["total"] > 0, spelling
        view = await lib.ok("query_base", yaml=f"views:\n  - type: table\n    name: v\n    filters: {spelling}\n")
        assert view["total"] == every["total"], spelling
