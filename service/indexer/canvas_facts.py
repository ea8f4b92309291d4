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


def _line_of(text: str, node_id: str, key: str) -> int:
    """The line of `key` inside the node with `node_id` (0 when it cannot be found)."""
    found = re.search(r'"id"\s*:\s*' + re.escape(json.dumps(node_id, ensure_ascii=False)), text)
    if found is None:
        found = re.search(r'"id"\s*:\s*' + re.escape(json.dumps(node_id)), text)
    if found is None:
        return 0
    start = text.rfind("{", 0, found.start())
    field = re.compile(r'"' + key + r'"\s*:').search(text, max(start, 0))
    pos = field.start() if field is not None else found.start()
    return text.count("\n", 0, pos)


def canvas_facts(path: str, text: str) -> CanvasFacts:
    name = path.rsplit("/", 1)[-1]
    title = name[: -len(CANVAS_SUFFIX)] if is_canvas(name) else name
    try:
        data = cv.loads(text)
    except ValueError:
        return CanvasFacts(title, "", [])
    links: list[CanvasLink] = []
    for node in cv.nodes_of(data):
        raw_id = node.get("id")
        ident = raw_id if isinstance(raw_id, str) else ""
        if node.get("type") == "file" and isinstance(node.get("file"), str) and node["file"]:
            sub = node.get("subpath")
            subpath = sub[1:] if isinstance(sub, str) and sub.startswith("#") and len(sub) > 1 else None
            links.append(CanvasLink(node["file"], subpath, None, True, "canvas", _line_of(text, ident, "file")))
        elif node.get("type") == "group" and isinstance(node.get("background"), str) and node["background"]:
            # A group's background image is shown on the canvas as an embed is: moving the image
            # rewrites it (graph.canvas_paths) only when the canvas is among the image's backlinks.
            line = _line_of(text, ident, "background")
            links.append(CanvasLink(node["background"], None, None, True, "canvas", line))
        elif node.get("type") == "text" and isinstance(node.get("text"), str) and "[" in node["text"]:
            line = _line_of(text, ident, "text")
            for link in parse_note("canvas-text.md", node["text"]).links:
                links.append(CanvasLink(link.target, link.subpath, link.alias, link.embed, link.kind, line))
    return CanvasFacts(title, cv.searchable_text(data), links)
