"""What the index stores of a JSON Canvas file: its words and its links.

A canvas is indexed beside the notes (one `notes` row, path ending in `.canvas`) so that its text
nodes, group labels and edge labels are found by full-text search, and so that a file node counts
as a link from the canvas to that file — Obsidian's backlinks show the canvases a note is placed
on — and so does a group's background image. Wikilinks and Markdown links written inside text
nodes are links too. Each link's line is the 0-based line of the JSON file where its node's
`file` (or `text`, `background`) field stands, so a linking line read back from disk points at
the node. A file that is not a canvas (broken JSON) is indexed with no words and no links. Pure
CPU work, safe in any thread or worker process.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass

from service.markdown.parse import parse_note
from service.obsidian import canvas as cv

CANVAS_SUFFIX = ".canvas"


def is_canvas(path: str) -> bool:
    return path.lower().endswith(CANVAS_SUFFIX)


@dataclass(frozen=True, slots=True)
class CanvasLink:
    target: str
    subpath: str | None
    alias: str | None
    embed: bool
    kind: str
    line: int


@dataclass(frozen=True, slots=True)
class CanvasFacts:
    title: str  # what full-text search weighs as the title: the file name without '.canvas'
    body: str
    links: list[CanvasLink]


_NODE_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*")')


class _Lines:
    """The line of a field inside a node, found from one pass over the text: each node id's first
    place and every line break are gathered once, on the first question. It searched the whole
    text once per linked node before (and counted its line breaks from the start), so a canvas of
    20,000 file nodes (1 MB) took 28 s of the indexer's time, and 50,000 nodes several minutes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ids: dict[str, int] | None = None
        self._breaks: list[int] = []

    def _gather(self) -> dict[str, int]:
        ids: dict[str, int] = {}
        for found in _NODE_ID.finditer(self.text):
            try:
                ident = json.loads(found.group(1))
            except ValueError:
                continue
            ids.setdefault(ident, found.start())
        self._breaks = [m.start() for m in re.finditer("\n", self.text)]
        return ids

    def of(self, node_id: str, key: str) -> int:
        """The 0-based line of `key` inside the node with `node_id` (0 when it cannot be found)."""
        if self._ids is None:
            self._ids = self._gather()
        at = self._ids.get(node_id)
        if at is None:
            return 0
        start = self.text.rfind("{", 0, at)
        field = re.compile(r'"' + key + r'"\s*:').search(self.text, max(start, 0))
        pos = field.start() if field is not None else at
        return bisect.bisect_left(self._breaks, pos)


def canvas_facts(path: str, text: str) -> CanvasFacts:
    name = path.rsplit("/", 1)[-1]
    title = name[: -len(CANVAS_SUFFIX)] if is_canvas(name) else name
    try:
        data = cv.loads(text)
    except ValueError:
        return CanvasFacts(title, "", [])
    links: list[CanvasLink] = []
    lines = _Lines(text)
    for node in cv.nodes_of(data):
        raw_id = node.get("id")
        ident = raw_id if isinstance(raw_id, str) else ""
        if node.get("type") == "file" and isinstance(node.get("file"), str) and node["file"]:
            sub = node.get("subpath")
            subpath = sub[1:] if isinstance(sub, str) and sub.startswith("#") and len(sub) > 1 else None
            links.append(CanvasLink(node["file"], subpath, None, True, "canvas", lines.of(ident, "file")))
        elif node.get("type") == "group" and isinstance(node.get("background"), str) and node["background"]:
            # A group's background image is shown on the canvas as an embed is: moving the image
            # rewrites it (graph.canvas_paths) only when the canvas is among the image's backlinks.
            line = lines.of(ident, "background")
            links.append(CanvasLink(node["background"], None, None, True, "canvas", line))
        elif node.get("type") == "text" and isinstance(node.get("text"), str) and "[" in node["text"]:
            line = lines.of(ident, "text")
            for link in parse_note("canvas-text.md", node["text"]).links:
                links.append(CanvasLink(link.target, link.subpath, link.alias, link.embed, link.kind, line))
    return CanvasFacts(title, cv.searchable_text(data), links)
