"""`.obsidian/bookmarks.json`, the core Bookmarks plugin's file: read, add, remove.

The file is `{"items": [...]}`; each item has a `type` and a `ctime` (milliseconds):
`file` (`path`, optional `subpath` `#Heading` or `#^block`), `folder` (`path`), `search`
(`query`), `graph` (`options`), `url` (`url`), `group` (`items`, nested), and an optional
`title`. Edits change only the item they add or remove: every other key, item and the order are
kept, unknown types and fields included.

An item's `id` is a key made from the item itself — its type and a hash of its own fields
(`ctime`, path, subpath, query, url, title, …; a group's nested items excluded) — so it names the
same bookmark whatever is added, removed or moved around it, and stops naming anything (rather
than naming a neighbour) when the item itself is edited or removed. Two identical items get `-2`,
`-3`… in file order. Its `position` (`"2"` at the top level, `"2.0"` inside that group) says where
it sits and is only for showing. Which items a caller sees is the `visible` predicate's answer, so
hidden items neither show nor shift positions.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from service.obsidian.jsjson import escape_lone

TYPES = ("file", "folder", "search", "graph", "url", "group")


@dataclass(frozen=True, slots=True)
class Located:
    """One item with where it sits: its id, position, the list that holds it and its index there."""

    id: str
    position: str
    item: dict[str, Any]
    container: list[Any]
    index: int
    depth: int
    group: str | None  # the title of the group it is in


def items_of(data: object) -> list[Any]:
    """The top-level item list; a file without one reads as empty."""
    items = data.get("items") if isinstance(data, dict) else None
    return items if isinstance(items, list) else []


def key_of(item: dict[str, Any]) -> str:
    """The item's own key: its type and a hash of its fields (a group's nested items left out)."""
    own = {k: v for k, v in item.items() if k != "items"}
    digest = hashlib.sha256(
        json.dumps(own, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    ).hexdigest()
    kind = item.get("type") if isinstance(item.get("type"), str) and item["type"].isalnum() else "item"
    return f"{kind}-{digest[:10]}"


def walk(items: list[Any], visible: Callable[[dict[str, Any]], bool], *, keyed: bool = True) -> Iterator[Located]:
    """Every visible item of the whole list, depth first, in file order. One pass with a stack of
    the lists being read (nested generators passed each item up through every enclosing group:
    groups 400 deep cost each item 400 steps). Not `keyed`: ids left empty (`ids_at` gives the
    few needed; hashing each item is most of a walk's time)."""
    seen: Counter[str] = Counter()
    # The lists being read, each with its position prefix, depth and group title; beside each, its
    # cursor: the next index in it and the next position a visible item takes.
    frames: list[tuple[list[Any], str, int, str | None]] = [(items, "", 0, None)]
    cursors: list[list[int]] = [[0, 0]]
    while frames:
        held, prefix, depth, group = frames[-1]
        cursor = cursors[-1]
        if cursor[0] >= len(held):
            frames.pop()
            cursors.pop()
            continue
        index = cursor[0]
        cursor[0] += 1
        item = held[index]
        if not isinstance(item, dict) or not visible(item):
            continue
        where = f"{prefix}{cursor[1]}"
        cursor[1] += 1
        ident = ""
        if keyed:
            key = key_of(item)
            seen[key] += 1
            ident = key if seen[key] == 1 else f"{key}-{seen[key]}"
        yield Located(ident, where, item, held, index, depth, group)
        if item.get("type") == "group" and isinstance(item.get("items"), list):
            title = item.get("title") if isinstance(item.get("title"), str) else None
            frames.append((item["items"], f"{where}.", depth + 1, title))
            cursors.append([0, 0])


def _plain(value: Any) -> str | int | None:
    """A field as `_shape` holds it: a string, an integer or None as it is, any other value as
    `key_of` writes it (NaN is not equal to itself, a dict's keys come in any order)."""
    if value is None or isinstance(value, str | int):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _shape(item: dict[str, Any]) -> tuple[Any, ...]:
    """A few of an item's fields: two items of one key have the same shape, so only items shaped
    alike need hashing to be told apart."""
    return tuple(_plain(item.get(k)) for k in ("type", "ctime", "path", "subpath", "url", "query", "title"))


def anchor_of(item: dict[str, Any]) -> str | int | None:
    """Part of an item's shape that finds it again without hashing every item (`anchored`): its
    `ctime` (when Obsidian made the bookmark, in milliseconds: all but unique)."""
    return _plain(item.get("ctime"))


def anchored(found: list[Located]) -> dict[str | int | None, int | list[int]]:
    """Where each anchor (`anchor_of`) sits in `found` (a whole walk): its index, or the indexes of
    the items that share it, in order."""
    places: dict[str | int | None, int | list[int]] = {}
    for i, loc in enumerate(found):
        anchor = anchor_of(loc.item)
        held = places.setdefault(anchor, i)
        if held != i:
            if isinstance(held, int):
                places[anchor] = held = [held]
            held.append(i)
    return places


def ids_at(found: list[Located], wanted: Iterable[int]) -> dict[int, str]:
    """The id `walk` gives `found[i]` for each wanted `i`, `found` being a whole walk (unkeyed): only
    those items and the earlier ones shaped alike are hashed (an id's number counts the identical
    items before it)."""
    want = set(wanted)
    if not want:
        return {}
    shapes = {_shape(found[i].item) for i in want}
    seen: dict[tuple[Any, ...], Counter[str]] = {shape: Counter() for shape in shapes}
    out: dict[int, str] = {}
    for j in range(max(want) + 1):
        counts = seen.get(_shape(found[j].item))
        if counts is None:
            continue
        key = key_of(found[j].item)
        counts[key] += 1
        if j in want:
            out[j] = key if counts[key] == 1 else f"{key}-{counts[key]}"
    return out


def ids_among(found: list[Located], same: list[int]) -> dict[int, str]:
    """The id `walk` gives `found[i]` for each `i` of `same`: the indexes, in order, of items of
    `found` (a whole walk, unkeyed) among which are all those of each key they hold (items of one
    key share their anchor and their shape), so only these are hashed."""
    seen: Counter[str] = Counter()
    out: dict[int, str] = {}
    for i in same:
        key = key_of(found[i].item)
        seen[key] += 1
        out[i] = key if seen[key] == 1 else f"{key}-{seen[key]}"
    return out


def find_moved(found: list[Located], among: Sequence[int], ident: str, near: int) -> int | None:
    """Where the item whose id `walk` gives as `ident` sits in `found` (a whole walk, unkeyed), looked
    for among the indexes `among` (in order; every item of its key among them) from `near` (where it
    was) outwards, or None. Bookmarks imported at once share one anchor: hashing all of them was the
    cost of hashing every item. Its copies (the items of its key) share its shape, so once one is
    found only the items of that shape among `among` are hashed to number them (`ids_among`)."""
    start = bisect_left(among, near)
    below, above = start - 1, start
    while below >= 0 or above < len(among):
        if above < len(among) and (below < 0 or among[above] - near <= near - among[below]):
            i, above = among[above], above + 1
        else:
            i, below = among[below], below - 1
        key = key_of(found[i].item)
        if ident == key or ident.startswith(f"{key}-"):
            shape = _shape(found[i].item)
            alike = [j for j in among if _shape(found[j].item) == shape]
            if alike == [i]:  # no copy: its id is its key
                return i if ident == key else None
            copies = ids_among(found, alike)
            return next((j for j, found_id in copies.items() if found_id == ident), None)
    return None


def inside_counts(found: list[Located]) -> dict[str, int]:
    """For each item of `found` (a `walk`, whole), how many of the items after it sit inside it:
    a group's count of the visible bookmarks at any depth in it, from one pass (by position)."""
    counts: dict[str, int] = {}
    open_: list[int] = []  # indexes of the items whose insides are still being read
    for i, loc in enumerate(found):
        while open_ and found[open_[-1]].depth >= loc.depth:
            j = open_.pop()
            counts[found[j].position] = i - j - 1
        open_.append(i)
    for j in open_:
        counts[found[j].position] = len(found) - j - 1
    return counts


def inside(loc: Located, group: Located) -> bool:
    """Whether `loc` sits (at any depth) inside `group`."""
    return loc.position.startswith(group.position + ".")


def same_path(stored: object, path: object) -> bool:
    """Whether a bookmark's stored path is `path`: Obsidian on macOS stores a name as the disk spells
    it (NFD), vaultgate names it in NFC; both are the same note."""
    if not isinstance(stored, str) or not isinstance(path, str):
        return False
    return stored == path or unicodedata.normalize("NFC", stored) == unicodedata.normalize("NFC", path)


def same_target(item: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether `item` already bookmarks what `new` would (Obsidian keeps one bookmark per target)."""
    if item.get("type") != new.get("type"):
        return False
    kind = new["type"]
    if kind == "file":
        return same_path(item.get("path"), new.get("path")) and item.get("subpath") == new.get("subpath")
    if kind == "folder":
        return same_path(item.get("path"), new.get("path"))
    if kind == "search":
        return bool(item.get("query") == new.get("query"))
    if kind == "url":
        return bool(item.get("url") == new.get("url"))
    return False


def dumps(data: dict[str, Any], found: str | None = None) -> str:
    """The layout Obsidian writes (two-space JSON, non-ASCII kept, half a UTF-16 pair escaped), or
    one line when the file was `found` on one line: indented, each line costs its depth, and a
    one-line file of 2.2 MB nested 400 groups deep became 166 MB (6.8 s) on every edit."""
    compact = found is not None and found.strip() != "" and "\n" not in found.strip()
    return escape_lone(json.dumps(data, indent=None if compact else 2, ensure_ascii=False))
