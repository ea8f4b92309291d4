"""Tag, property and JSONLogic search through the dispatch chain (the tag/property listings of the
properties domain are in tests/tools/properties/test_listings.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Harness


def paths(out: dict[str, Any]) -> list[str]:
    return [item["path"] for item in out["items"]]


# -- search_tags ---------------------------------------------------------------------------------


async def test_search_tags_nested_case_insensitive_and_hash_optional(sv: Harness) -> None:
    out = await sv.ok("search_tags", tags=["#PROJECT"])
    assert paths(out) == [
        "Journal/2026-01-05.md",  # inline #Project/Beta
        "Private/Secret.md",
        "Projects/Alpha.md",
        "Projects/Beta.md",
        "Projects/Gamma.md",  # frontmatter `tags: project` as a string
    ]
    assert out["total"] == 5
    alpha = out["items"][2]
    assert alpha["tags"] == ["project/alpha", "active"] and alpha["properties"]["status"] == "active"
    assert alpha["obsidian_url"].endswith("file=Projects%2FAlpha.md")
    assert paths(await sv.ok("search_tags", tags=["project/alpha"])) == ["Private/Secret.md", "Projects/Alpha.md"]


async def test_search_tags_all_versus_any_and_folder(sv: Harness) -> None:
    assert paths(await sv.ok("search_tags", tags=["project/beta", "gardening"], match="all")) == [
        "Journal/2026-01-05.md"
    ]
    anyof = await sv.ok("search_tags", tags=["project/beta", "gardening"], match="any")
    assert paths(anyof) == ["Journal/2026-01-05.md", "Projects/Beta.md"]
    scoped = await sv.ok("search_tags", tags=["project"], folder="Projects", limit=2)
    assert paths(scoped) == ["Projects/Alpha.md", "Projects/Beta.md"] and scoped["next_cursor"]
    rest = await sv.ok("search_tags", tags=["project"], folder="Projects", limit=2, cursor=scoped["next_cursor"])
    assert paths(rest) == ["Projects/Gamma.md"] and rest["next_cursor"] is None


async def test_search_tags_ignores_tags_in_code_blocks(sv: Harness) -> None:
    assert (await sv.ok("search_tags", tags=["notatag"]))["items"] == []


async def test_search_tags_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    await sv.err("search_tags", "validation_error", tags=[])
    await sv.err("search_tags", "validation_error", tags=["two words"])
    await sv.err("search_tags", "validation_error", tags=["#"])
    await sv.err("search_tags", "validation_error", tags=["x"], match="some")
    await sv.err("search_tags", "note_not_found", tags=["x"], folder="Nope")
    assert sv.snapshot() == before


# -- search_properties ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"key": "status", "op": "==", "value": "ACTIVE"}, ["Private/Secret.md", "Projects/Alpha.md"]),
        ({"key": "status", "op": "!=", "value": "active"}, ["Projects/Beta.md", "Projects/Gamma.md"]),
        ({"key": "status", "op": "contains", "value": "raf"}, ["Projects/Gamma.md"]),
        ({"key": "priority", "op": ">", "value": 2}, ["Private/Secret.md", "Projects/Alpha.md", "Projects/Gamma.md"]),
        ({"key": "priority", "op": "<", "value": 2.5}, ["Projects/Beta.md"]),
        ({"key": "priority", "op": "<=", "value": 2.5}, ["Projects/Beta.md", "Projects/Gamma.md"]),
        ({"key": "priority", "op": "==", "value": 3}, ["Projects/Alpha.md"]),
        ({"key": "reviewed", "op": "==", "value": True}, ["Projects/Alpha.md"]),
        ({"key": "reviewed", "op": "==", "value": False}, ["Projects/Beta.md"]),
        ({"key": "due", "op": "<", "value": "2026-01-01"}, ["Projects/Beta.md"]),
        ({"key": "due", "op": ">=", "value": "2026-03-01"}, ["Projects/Alpha.md"]),
        ({"key": "due", "op": "==", "value": "2026-03-01"}, ["Projects/Alpha.md"]),
        ({"key": "owners", "op": "contains", "value": "bob"}, ["Projects/Alpha.md", "Projects/Beta.md"]),
        ({"key": "owners", "op": "==", "value": "ana"}, ["Projects/Alpha.md"]),
        ({"key": "owners", "op": "==", "value": ["Bob", "ana"]}, ["Projects/Alpha.md"]),
        ({"key": "owners", "op": "!=", "value": ["bob"]}, ["Projects/Alpha.md"]),
        ({"key": "rating", "op": "exists"}, ["Projects/Gamma.md"]),
        ({"key": "priority", "op": "not_exists"}, ["Journal/2026-01-05.md", "Journal/2026-01-06.md", "Welcome.md"]),
        ({"key": "status", "op": "==", "value": None}, []),
    ],
)
async def test_search_properties_ops_and_types(sv: Harness, flt: dict[str, Any], expected: list[str]) -> None:
    out = await sv.ok("search_properties", filters=[flt])
    assert paths(out) == expected
    assert out["total"] == len(expected)


async def test_search_properties_combines_filters_all_and_any(sv: Harness) -> None:
    both = [{"key": "status", "op": "==", "value": "active"}, {"key": "priority", "op": "<", "value": 5}]
    assert paths(await sv.ok("search_properties", filters=both)) == ["Projects/Alpha.md"]
    either = [{"key": "status", "op": "==", "value": "done"}, {"key": "rating", "op": "exists"}]
    assert paths(await sv.ok("search_properties", filters=either, match="any")) == [
        "Projects/Beta.md",
        "Projects/Gamma.md",
    ]
    mixed = [{"key": "owners", "op": "==", "value": ["bob"]}, {"key": "rating", "op": "exists"}]
    assert paths(await sv.ok("search_properties", filters=mixed, match="any")) == [
        "Projects/Beta.md",
        "Projects/Gamma.md",
    ]
    assert paths(await sv.ok("search_properties", filters=mixed, match="all")) == []
    newest = await sv.ok("search_properties", filters=[{"key": "status", "op": "exists"}], sort="title")
    assert [i["title"] for i in newest["items"]] == ["Alpha", "Beta", "Gamma", "Secret"]  # file names


async def test_search_properties_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    await sv.err("search_properties", "validation_error", filters=[])
    await sv.err("search_properties", "validation_error", filters=[{"key": "a", "op": "~=", "value": 1}])
    await sv.err("search_properties", "validation_error", filters=[{"key": "", "op": "exists"}])
    err = await sv.err("search_properties", "validation_error", filters=[{"key": "a", "op": "<", "value": True}])
    assert err["details"]["key"] == "a"
    await sv.err("search_properties", "validation_error", filters=[{"key": "a", "op": "contains", "value": ""}])
    await sv.err("search_properties", "validation_error", filters=[{"key": "a", "op": "<", "value": [1]}])
    await sv.err("search_properties", "validation_error", filters=[{"key": "a", "op": "==", "value": {"x": 1}}])
    assert sv.snapshot() == before


# -- query_jsonlogic -----------------------------------------------------------------------------


async def test_query_jsonlogic_over_metadata(sv: Harness) -> None:
    rule = {
        "and": [
            {"some": [{"var": "tags"}, {"starts_with": [{"var": ""}, "project"]}]},
            {">": [{"var": "properties.priority"}, 2]},
            {"glob": [{"var": "path"}, "Projects/**"]},
        ]
    }
    out = await sv.ok("query_jsonlogic", logic=rule)
    assert paths(out) == ["Projects/Alpha.md", "Projects/Gamma.md"]
    assert out["items"][0]["properties"]["priority"] == 3
    by_title = await sv.ok("query_jsonlogic", logic={"in": ["alph", {"lower": {"var": "title"}}]})
    assert paths(by_title) == ["Projects/Alpha.md"]  # the title is the file name, as in Obsidian
    by_property = await sv.ok("query_jsonlogic", logic={"==": [{"var": "properties.title"}, "Alpha launch"]})
    assert paths(by_property) == ["Projects/Alpha.md"]
    scoped = await sv.ok("query_jsonlogic", logic={"==": [1, 1]}, folder="Journal", sort="mtime")
    assert sorted(paths(scoped)) == ["Journal/2026-01-05.md", "Journal/2026-01-06.md"]
    iffy = {"if": [{"missing": ["properties.status"]}, False, {"!=": [{"var": "properties.status"}, "draft"]}]}
    assert paths(await sv.ok("query_jsonlogic", logic=iffy)) == [
        "Private/Secret.md",
        "Projects/Alpha.md",
        "Projects/Beta.md",
    ]


async def test_query_jsonlogic_op_budget(sv: Harness) -> None:
    sv.app.settings.search.jsonlogic_max_ops = 1000
    heavy = {"all": [{"merge": [list(range(200))]}, {"<": [{"var": ""}, 1000]}]}
    error = await sv.err("query_jsonlogic", "compute_budget_exceeded", logic=heavy)
    assert error["details"]["max_ops"] == 1000


async def test_query_jsonlogic_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    err = await sv.err("query_jsonlogic", "query_syntax_error", logic={"exec": ["rm -rf /"]})
    assert err["details"]["at"] == "$"
    await sv.err("query_jsonlogic", "query_syntax_error", logic={"and": [{"==": [1]}]})
    await sv.err("query_jsonlogic", "query_syntax_error", logic={"==": [1, 1], "!=": [1, 2]})
    deep: Any = True
    for _ in range(100):
        deep = {"!": [deep]}
    # nested past the dispatch chain's bound on free-form arguments: refused before the engine
    await sv.err("query_jsonlogic", "validation_error", logic=deep)
    await sv.err("query_jsonlogic", "validation_error")
    assert sv.snapshot() == before
