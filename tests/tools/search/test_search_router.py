"""search_vault (mode router) and search_notes (its paged contract) through the dispatch chain."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Harness


def paths(out: dict[str, Any]) -> list[str]:
    return [item["path"] for item in out["items"]]


@pytest.mark.parametrize(
    ("args", "mode", "first"),
    [
        ({"query": "tomatoes"}, "text", "Journal/2026-01-05.md"),
        ({"query": "/CODE \\d+/i"}, "regex", "Projects/Gamma.md"),
        ({"tags": ["gardening"]}, "tags", "Journal/2026-01-05.md"),
        ({"filters": [{"key": "priority", "op": ">", "value": 5}]}, "properties", "Private/Secret.md"),
        ({"logic": {"==": [{"var": "title"}, "Beta"]}}, "jsonlogic", "Projects/Beta.md"),
        ({"query": "rocket", "tags": ["project/alpha"]}, "hybrid", None),
    ],
)
async def test_search_vault_auto_picks_the_mode(sv: Harness, args: dict[str, Any], mode: str, first: str) -> None:
    out = await sv.ok("search_vault", **args)
    assert out["mode"] == mode
    assert out["items"], out
    if first is not None:
        assert out["items"][0]["path"] == first
    assert all(i["obsidian_url"].startswith("obsidian://open?") for i in out["items"])


async def test_search_vault_hybrid_ranks_notes_found_both_ways_first(sv: Harness) -> None:
    out = await sv.ok("search_vault", mode="hybrid", query="rocket", tags=["project/alpha"])
    top_two = set(paths(out)[:2])
    assert top_two == {"Projects/Alpha.md", "Private/Secret.md"}  # text hit AND tagged
    assert "Journal/2026-01-06.md" in paths(out)  # text only, ranked after
    assert out["items"][0]["score"] == 1.0 and out["items"][0]["snippet"]
    page = await sv.ok("search_vault", mode="hybrid", query="rocket", tags=["project/alpha"], limit=2)
    rest = await sv.ok(
        "search_vault", mode="hybrid", query="rocket", tags=["project/alpha"], cursor=page["next_cursor"]
    )
    assert paths(page) + paths(rest) == paths(out)


async def test_search_vault_explicit_modes_and_failures(sv: Harness) -> None:
    text = await sv.ok("search_vault", mode="text", query="garden", folder="Journal")
    assert paths(text) == ["Journal/2026-01-05.md"] and text["items"][0]["score"] is not None
    regex = await sv.ok("search_vault", mode="regex", query="plant(ed|s)")
    assert paths(regex) == ["Journal/2026-01-05.md"] and regex["items"][0]["snippet"].startswith("Went to the garden")
    before = sv.snapshot()
    await sv.err("search_vault", "validation_error")
    await sv.err("search_vault", "validation_error", mode="tags")
    await sv.err("search_vault", "validation_error", mode="text")
    await sv.err("search_vault", "validation_error", mode="fuzzy", query="x")
    # What the mode's own tool refuses is validation_error too, never internal_error (T1 s62 #11)
    error = await sv.err("search_vault", "validation_error", mode="jsonlogic")
    assert error["details"] == {"field": "logic", "mode": "jsonlogic"}
    await sv.err("search_vault", "validation_error", mode="jsonlogic", query='{"var": "path"}')
    error = await sv.err("search_vault", "validation_error", mode="regex", query="a" * 1500)  # past the regex bound
    assert error["details"]["mode"] == "regex" and error["details"]["issues"][0]["field"] == "pattern"
    error = await sv.err("search_vault", "mode_unavailable", mode="semantic", query="x")
    assert error["hint"] and error["retryable"] is False
    error = await sv.err("search_vault", "mode_unavailable", mode="graph", query="x")
    assert error["retryable"] is False and error["details"]["mode"] == "graph"
    await sv.err("search_vault", "query_syntax_error", query='"open')
    assert sv.snapshot() == before


# -- search_notes --------------------------------------------------------------------------------


async def test_search_notes_full_text_with_scope_total_and_seed_shape(sv: Harness) -> None:
    out = await sv.ok("search_notes", mode="full_text", query="rocket", path_scope=["Projects"], limit=2)
    assert out["total"] == 3 and out["offset"] == 0 and len(out["items"]) == 2
    item = out["items"][0]
    seed = {"path", "title", "score", "snippet", "tags", "properties", "modified_time", "obsidian_url"}
    assert set(item) == seed | {"sensitive"}  # seed 004's fields, and the flag every search item carries
    assert 0 < item["score"] <= 1 and item["modified_time"].endswith("Z")
    assert all(t.startswith("#") for t in item["tags"])
    assert all(p.startswith("Projects/") for p in paths(out))
    rest = await sv.ok("search_notes", mode="full_text", query="rocket", path_scope=["Projects"], limit=2, offset=2)
    assert rest["total"] == 3 and len(rest["items"]) == 1
    assert set(paths(out)) | set(paths(rest)) == {"Projects/Alpha.md", "Projects/Beta.md", "Projects/Gamma.md"}


async def test_search_notes_tags_properties_and_sorts(sv: Harness) -> None:
    tagged = await sv.ok("search_notes", mode="tags", tags=["#project"], sort="path_asc")
    assert paths(tagged) == [
        "Journal/2026-01-05.md",
        "Private/Secret.md",
        "Projects/Alpha.md",
        "Projects/Beta.md",
        "Projects/Gamma.md",
    ]
    props = await sv.ok(
        "search_notes",
        mode="properties",
        properties={"status": ["active", "draft"], "priority": {"op": ">", "value": 2}},
        sort="path_asc",
    )
    assert paths(props) == ["Private/Secret.md", "Projects/Alpha.md", "Projects/Gamma.md"]
    assert props["items"][1]["properties"]["status"] == "active"
    eq = await sv.ok("search_notes", mode="properties", properties={"owners": "bob"}, sort="path_asc")
    assert paths(eq) == ["Projects/Alpha.md", "Projects/Beta.md"]
    filtered = await sv.ok("search_notes", mode="full_text", query="rocket", tags=["project/alpha"])
    assert set(paths(filtered)) == {"Projects/Alpha.md", "Private/Secret.md"}
    newest = await sv.ok("search_notes", mode="tags", tags=["project"], sort="modified_desc")
    times = [i["modified_time"] for i in newest["items"]]
    assert times == sorted(times, reverse=True)


async def test_search_notes_takes_the_query_as_tags_or_property_conditions(sv: Harness) -> None:
    """Seed 004: `query` is the search string of every mode."""
    by_query = await sv.ok("search_notes", mode="tags", query="project", sort="path_asc")
    by_tags = await sv.ok("search_notes", mode="tags", tags=["project"], sort="path_asc")
    assert paths(by_query) == paths(by_tags) and by_query["total"] == 5
    both = await sv.ok("search_notes", mode="tags", query="#project, active")
    assert paths(both) == ["Projects/Alpha.md"] and both["items"][0]["obsidian_url"].startswith("obsidian://open?")
    joined = await sv.ok("search_notes", mode="tags", query="secret", tags=["project/alpha"])
    assert paths(joined) == ["Private/Secret.md"]
    cond = await sv.ok("search_notes", mode="properties", query="status=active, priority>5", sort="path_asc")
    assert paths(cond) == ["Private/Secret.md"]
    exists = await sv.ok("search_notes", mode="properties", query="reviewed: true")
    assert paths(exists) == ["Projects/Alpha.md"]
    mixed = await sv.ok("search_notes", mode="properties", query="rating", properties={"status": "draft"})
    assert paths(mixed) == ["Projects/Gamma.md"]


async def test_search_notes_hybrid_fuses_text_and_metadata(sv: Harness) -> None:
    out = await sv.ok("search_notes", query="garden", tags=["gardening"])
    assert paths(out)[0] == "Journal/2026-01-05.md"  # found by both
    assert set(paths(out)) == {"Journal/2026-01-05.md", "Projects/Beta.md", "Projects/Gamma.md"}
    only_props = await sv.ok("search_notes", properties={"reviewed": True})
    assert paths(only_props) == ["Projects/Alpha.md"] and only_props["items"][0]["snippet"].startswith("Alpha launch")


async def test_search_notes_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    await sv.err("search_notes", "validation_error", mode="full_text")
    await sv.err("search_notes", "validation_error", mode="tags", query=" , ")
    await sv.err("search_notes", "validation_error", mode="properties", query="=x")
    await sv.err("search_notes", "validation_error", mode="properties", tags=["x"])
    await sv.err("search_notes", "validation_error")
    await sv.err("search_notes", "validation_error", mode="hybrid", query="x", sort="size")
    await sv.err("search_notes", "validation_error", query="x", offset=-1)
    await sv.err("search_notes", "validation_error", properties={"status": {"eq": 1}})
    await sv.err("search_notes", "validation_error", properties={"status": []})
    await sv.err("search_notes", "path_invalid", query="x", path_scope=["../up"])
    assert sv.snapshot() == before
