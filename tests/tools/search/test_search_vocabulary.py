"""One vocabulary across the search tools: `folder` scopes and `sort` orders with the same words
(relevance, mtime, path, title); search_notes also accepts the names its published contract used
(`path_scope`, `modified_desc`, `path_asc`), with the same results."""

from __future__ import annotations

from typing import Any

import pytest

from service.tools.registry import build_registry
from service.tools.search_common import LEGACY_SORTS, SORTS
from tests.conftest import Harness

SEARCH_TOOLS = ("search_text", "search_regex", "search_tags", "search_properties", "query_jsonlogic", "search_vault")


def paths(out: dict[str, Any]) -> list[str]:
    return [item["path"] for item in out["items"]]


def test_every_search_tool_scopes_with_folder_and_sorts_with_the_shared_words() -> None:
    registry = build_registry()
    for name in (*SEARCH_TOOLS, "search_notes"):
        spec = registry.get(name)
        assert spec is not None
        props = spec.input_schema()["properties"]
        assert "folder" in props and "path_scope" not in props, name
        if "sort" in props:
            assert set(props["sort"]["enum"]) <= set(SORTS), name
            assert not set(props["sort"]["enum"]) & set(LEGACY_SORTS), name


@pytest.mark.covers("search_notes", "success")
async def test_search_notes_takes_folder_and_its_published_alias_path_scope(sv: Harness) -> None:
    new = await sv.ok("search_notes", mode="full_text", query="rocket", folder="Projects", sort="path")
    listed = await sv.ok("search_notes", mode="full_text", query="rocket", folder=["Projects"], sort="path")
    old = await sv.ok("search_notes", mode="full_text", query="rocket", path_scope=["Projects"], sort="path_asc")
    assert paths(new) == paths(listed) == paths(old) == ["Projects/Alpha.md", "Projects/Beta.md", "Projects/Gamma.md"]
    assert new["total"] == old["total"] == 3


@pytest.mark.covers("search_notes", "success")
async def test_search_notes_sorts_by_the_shared_words_and_the_published_ones(sv: Harness) -> None:
    for shared, legacy in (("mtime", "modified_desc"), ("path", "path_asc")):
        a = await sv.ok("search_notes", mode="tags", tags=["project"], sort=shared)
        b = await sv.ok("search_notes", mode="tags", tags=["project"], sort=legacy)
        assert paths(a) == paths(b) and len(paths(a)) == 5
    newest = await sv.ok("search_notes", mode="tags", tags=["project"], sort="mtime")
    times = [i["modified_time"] for i in newest["items"]]
    assert times == sorted(times, reverse=True)


@pytest.mark.covers("search_notes", "failure")
async def test_search_notes_refuses_both_names_at_once_and_unknown_sorts(sv: Harness) -> None:
    before = sv.snapshot()
    both = await sv.err("search_notes", "validation_error", query="rocket", folder="Projects", path_scope=["Journal"])
    assert "path_scope" in both["message"]
    await sv.err("search_notes", "validation_error", query="rocket", sort="newest")
    await sv.err("search_text", "validation_error", query="rocket", sort="modified_desc")  # aliases: search_notes only
    assert sv.snapshot() == before


@pytest.mark.covers("search_tags", "success")
@pytest.mark.covers("search_text", "success")
async def test_the_other_search_tools_sort_by_mtime_newest_first(sv: Harness) -> None:
    tagged = await sv.ok("search_tags", tags=["project"], sort="mtime")
    by_notes = await sv.ok("search_notes", mode="tags", tags=["project"], sort="mtime")
    assert paths(tagged) == paths(by_notes)
    text = await sv.ok("search_text", query="rocket", folder="Projects", sort="path")
    assert paths(text) == sorted(paths(text))
