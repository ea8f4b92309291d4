"""list_tags / list_properties / property_values over the search vault, through the dispatch chain."""

from __future__ import annotations

from tests.conftest import Harness


async def test_list_tags_counts_and_hierarchy(sv: Harness) -> None:
    out = await sv.ok("list_tags")
    by_tag = {i["tag"].lower(): i for i in out["items"]}
    assert by_tag["project"]["count"] == 5 and by_tag["project"]["direct"] == 1
    assert by_tag["project/alpha"] == {"tag": "project/alpha", "count": 2, "direct": 2, "depth": 1, "parent": "project"}
    assert by_tag["project/beta"]["count"] == 2  # Beta.md and the journal's #Project/Beta
    assert "notatag" not in by_tag
    top = await sv.ok("list_tags", sort="count", limit=1)
    assert top["items"][0]["tag"] == "project" and top["next_cursor"] and top["total"] == out["total"]
    assert [i["tag"] for i in (await sv.ok("list_tags", prefix="#project/alpha"))["items"]] == ["project/alpha"]
    journal = await sv.ok("list_tags", folder="Journal")
    assert sorted(i["tag"].lower() for i in journal["items"]) == ["gardening", "project", "project/beta"]


async def test_list_properties_types_and_counts(sv: Harness) -> None:
    out = await sv.ok("list_properties")
    keys = {i["key"]: i for i in out["items"]}
    assert keys["priority"]["type"] == "number" and keys["priority"]["count"] == 4
    assert keys["due"]["type"] == "date"
    assert keys["reviewed"]["type"] == "checkbox"
    assert keys["owners"]["type"] == "list"
    assert keys["status"]["type"] == "text"
    assert keys["rating"]["type"] == "empty"
    assert keys["tags"]["types"] == {"list": 3, "text": 1}
    page = await sv.ok("list_properties", limit=2)
    assert len(page["items"]) == 2 and page["next_cursor"]


async def test_property_values_counts_case_folded_and_list_items(sv: Harness) -> None:
    status = await sv.ok("property_values", key="status")
    assert {(i["value"].lower(), i["count"]) for i in status["items"]} == {("active", 2), ("done", 1), ("draft", 1)}
    assert status["items"][0]["value"] == "active"
    owners = await sv.ok("property_values", key="owners")
    assert {(i["value"].lower(), i["count"]) for i in owners["items"]} == {("bob", 2), ("ana", 1)}
    assert (await sv.ok("property_values", key="nope"))["items"] == []


async def test_listing_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    await sv.err("list_tags", "validation_error", sort="size")
    await sv.err("list_tags", "note_not_found", folder="Nope")
    await sv.err("list_properties", "path_invalid", folder="/etc")
    await sv.err("property_values", "validation_error", key="")
    await sv.err("property_values", "validation_error", key="status", cursor="bad")
    assert sv.snapshot() == before
