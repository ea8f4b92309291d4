"""A registry built with the cache folder adds a domain's tools at their first lookup, and is the
same registry as a complete build in every answer it gives (service/tools/registry.py)."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

from service.storage.tool_index import FILE_NAME, ToolIndex, shipped_table
from service.tools.registry import FACADE, PARTS, build_registry

COMPLETE = build_registry()
NAMES = [spec.name for spec in COMPLETE]


def _primed(folder: Path) -> None:
    """The folder's tool index, as the first start on it writes it."""
    build_registry(folder)
    assert (folder / FILE_NAME).is_file()


def test_a_first_build_on_a_cache_folder_is_complete_and_writes_where_each_tool_is(tmp_path: Path) -> None:
    registry = build_registry(tmp_path)
    assert registry.loaded_parts() == PARTS
    assert registry.names() == NAMES
    where = ToolIndex(tmp_path).read()
    assert where is not None and sorted(where) == sorted(NAMES)
    assert where["read_note"] == "notes" and where["execute_plan"] == "sessions.plans" and where["notes"] == FACADE


def test_a_lookup_adds_only_the_part_that_declares_the_tool(tmp_path: Path) -> None:
    _primed(tmp_path)
    registry = build_registry(tmp_path)
    assert registry.loaded_parts() == ()
    spec = registry.get("read_note")
    assert spec is not None and spec.domain == "notes"
    assert registry.loaded_parts() == ("notes",)
    assert registry.get("get_backlinks") is not None
    assert registry.loaded_parts() == ("notes", "graph")


def test_listing_a_lazily_built_registry_gives_every_tool_in_the_complete_order(tmp_path: Path) -> None:
    _primed(tmp_path)
    registry = build_registry(tmp_path)
    assert registry.get("get_backlinks") is not None  # a later domain first: the order is still the catalog's
    assert [spec.name for spec in registry] == NAMES
    assert len(registry) == len(NAMES) and registry.loaded_parts() == PARTS


def test_a_facade_tool_is_built_from_every_other_domain(tmp_path: Path) -> None:
    _primed(tmp_path)
    registry = build_registry(tmp_path)
    spec = registry.get("notes")  # the notes domain's meta-tool
    assert spec is not None and spec.domain == "facade"
    assert registry.loaded_parts() == PARTS


def test_a_tool_the_index_places_wrongly_is_still_found_and_an_unknown_one_is_not(tmp_path: Path) -> None:
    _primed(tmp_path)
    path = tmp_path / FILE_NAME
    data = json.loads(path.read_text())
    data["tools"]["read_note"] = "graph"
    path.write_text(json.dumps(data))
    registry = build_registry(tmp_path)
    spec = registry.get("read_note")
    assert spec is not None and spec.domain == "notes"
    assert build_registry(tmp_path).get("no_such_tool") is None


def test_an_index_of_other_sources_means_a_complete_build(tmp_path: Path) -> None:
    _primed(tmp_path)
    path = tmp_path / FILE_NAME
    data = json.loads(path.read_text())
    data["key"] = "other sources"
    path.write_text(json.dumps(data))
    assert build_registry(tmp_path).loaded_parts() == PARTS
    assert json.loads(path.read_text())["key"] != "other sources"  # written again
    path.write_text("not json")
    assert build_registry(tmp_path).loaded_parts() == PARTS


def test_threads_that_list_a_lazily_built_registry_at_once_each_see_every_tool(tmp_path: Path) -> None:
    _primed(tmp_path)
    registry = build_registry(tmp_path)
    seen: list[list[str]] = []
    threads = [threading.Thread(target=lambda: seen.append([spec.name for spec in registry])) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert seen == [NAMES] * 4


def test_a_tool_added_to_a_lazily_built_registry_stays_when_the_catalog_is_completed(tmp_path: Path) -> None:
    _primed(tmp_path)
    registry = build_registry(tmp_path)
    read = registry.get("read_note")
    assert read is not None
    extra = dataclasses.replace(read, name="read_note_again")
    registry.add(extra)
    assert [spec.name for spec in registry] == [*NAMES, "read_note_again"]
    assert registry.get("read_note_again") is extra


def test_an_empty_cache_folder_takes_the_shipped_table_and_adds_parts_as_called(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped.json"
    shipped.write_text(shipped_table(COMPLETE.where_found()), encoding="utf-8")
    registry = build_registry(tmp_path / "cache", shipped)
    assert registry.loaded_parts() == ()
    assert registry.get("read_note") is not None and registry.loaded_parts() == ("notes",)
    assert [spec.name for spec in registry] == NAMES


def test_a_stale_shipped_table_still_finds_every_tool_and_an_unreadable_one_means_a_complete_build(
    tmp_path: Path,
) -> None:
    where = COMPLETE.where_found()
    where["read_note"] = "graph"  # moved since the table was made
    del where["get_backlinks"]  # added since
    shipped = tmp_path / "shipped.json"
    shipped.write_text(shipped_table(where), encoding="utf-8")
    registry = build_registry(tmp_path / "cache", shipped)
    spec = registry.get("read_note")
    assert spec is not None and spec.domain == "notes"
    assert build_registry(tmp_path / "cache", shipped).get("get_backlinks") is not None
    shipped.write_text("not json", encoding="utf-8")
    assert build_registry(tmp_path / "cache", shipped).loaded_parts() == PARTS
