"""`.obsidian/workspace.json`: the open tabs, the active tab and the recently opened files.

The file holds the layout tree Obsidian restores on start: `main`, `left` and `right` splits of
`tabs` groups of `leaf`s, each leaf's `state` naming its view (`markdown`, `canvas`, `pdf`,
`graph`, ...) and, for file views, `state.state.file`; `active` is the id of the focused leaf and
`lastOpenFiles` the recent files, newest first. Anything missing or malformed reads as nothing:
a partial file yields the parts it has, never an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

AREAS = ("main", "left", "right")


@dataclass(frozen=True, slots=True)
class Leaf:
    id: str
    area: str
    view: str
    file: str | None
    title: str | None
    pinned: bool
    current: bool  # the selected tab of its tab group


def _leaves(node: object, area: str, current: bool) -> Iterator[Leaf]:
    if not isinstance(node, dict):
        return
    if node.get("type") == "leaf":
        raw_state = node.get("state")
        state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
        raw_inner = state.get("state")
        inner: dict[str, Any] = raw_inner if isinstance(raw_inner, dict) else {}
        file = inner.get("file")
        title = state.get("title")
        yield Leaf(
            id=str(node.get("id", "")),
            area=area,
            view=str(state.get("type", "")),
            file=file if isinstance(file, str) and file else None,
            title=title if isinstance(title, str) else None,
            pinned=bool(node.get("pinned", False) or state.get("pinned", False)),
            current=current,
        )
        return
    children = node.get("children")
    if not isinstance(children, list):
        return
    selected = node.get("currentTab", 0) if node.get("type") == "tabs" else None
    for i, child in enumerate(children):
        yield from _leaves(child, area, current if selected is None else (i == selected))


def leaves(data: object) -> list[Leaf]:
    """Every leaf of the three areas, in layout order."""
    if not isinstance(data, dict):
        return []
    return [leaf for area in AREAS for leaf in _leaves(data.get(area), area, True)]


def active_id(data: object) -> str | None:
    active = data.get("active") if isinstance(data, dict) else None
    return active if isinstance(active, str) and active else None


def last_open_files(data: object) -> list[str]:
    files = data.get("lastOpenFiles") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return []
    return list(dict.fromkeys(f for f in files if isinstance(f, str) and f))
