"""`.obsidian/bookmarks.json`, the core Bookmarks plugin's file: read, add, remove.

The file is `{"items": [...]}`; each item has a `type` and a `ctime` (milliseconds):
`file` (`path`, optional `subpath` `#Heading` or `#^block`), `folder` (`path`), `search`
(`query`), `graph` (`options`), `url` (`url`), `group` (`items`, nested), and an optional
`title`. Edits change only the item they add or remove: every other key, item and the order are
kept, unknown types and fields included.

An item's `id` is its position among the items the caller sees, `"2"` at the top level and
`"2.0"` inside that group: stable until the items above it change (guard edits with the file's
etag). Which items a caller sees is the `visible` predicate's answer, so hidden items neither
show nor shift the ids.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

TYPES = ("file", "folder", "search", "graph", "url", "group")


@dataclass(frozen=True, slots=True)
class Located:
    """One item with where it sits: its id, the list that holds it and its index there."""

    id: str
    item: dict[str, Any]
    container: list[Any]
    index: int
    depth: int
    group: str | None  # the title of the group it is in


def items_of(data: object) -> list[Any]:
    """The top-level item list; a file without one reads as empty."""
    items = data.get("items") if isinstance(data, dict) else None
    return items if isinstance(items, list) else []


def walk(
    items: list[Any],
    visible: Callable[[dict[str, Any]], bool],
    prefix: str = "",
    depth: int = 0,
    group: str | None = None,
) -> Iterator[Located]:
    """Every visible item, depth first, in file order."""
    position = 0
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not visible(item):
            continue
        ident = f"{prefix}{position}"
        position += 1
        yield Located(ident, item, items, index, depth, group)
        if item.get("type") == "group" and isinstance(item.get("items"), list):
            title = item.get("title") if isinstance(item.get("title"), str) else None
            yield from walk(item["items"], visible, f"{ident}.", depth + 1, title)


def same_target(item: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether `item` already bookmarks what `new` would (Obsidian keeps one bookmark per target)."""
    if item.get("type") != new.get("type"):
        return False
    kind = new["type"]
    if kind == "file":
        return bool(item.get("path") == new.get("path") and item.get("subpath") == new.get("subpath"))
    if kind == "folder":
        return bool(item.get("path") == new.get("path"))
    if kind == "search":
        return bool(item.get("query") == new.get("query"))
    if kind == "url":
        return bool(item.get("url") == new.get("url"))
    return False


def dumps(data: dict[str, Any]) -> str:
    """The layout Obsidian writes (two-space JSON, non-ASCII kept)."""
    return json.dumps(data, indent=2, ensure_ascii=False)
