"""JSON Canvas 1.0 (jsoncanvas.org/spec/1.0): validation, and what a canvas says to the index.

A canvas is a JSON object with optional `nodes` and `edges` arrays. Nodes are `text`, `file`,
`link` or `group`, each with a string `id` and integer `x`, `y`, `width`, `height`; edges join
two node ids, with optional sides (`top`/`right`/`bottom`/`left`), ends (`none`/`arrow`;
`fromEnd` defaults to none, `toEnd` to arrow), `color` and `label`. A colour is a hex string
(`#RGB`/`#RRGGBB`) or a preset `"1"`–`"6"` (red, orange, yellow, green, cyan, purple). Fields the
spec does not name are kept as they are: validation never drops anything. Node order is z-order
(first is lowest), so nothing here reorders.

`problems` returns every violation at once (one `{where, field, problem}` record each) instead of
stopping at the first, so a caller can fix a canvas in one round. `dumps` writes the layout
Obsidian itself writes (tab-indented JSON, non-ASCII kept).

`NOT_CANVAS` is the one SQL rule for "a note row": the index keeps a canvas in its `notes` table
(for its words and links, see `service.indexer.canvas_facts`), and every count, listing or query
over notes leaves it out with this condition (docs/tools-guide.md, "Canvases in the index").
"""

from __future__ import annotations

import json
import re
from typing import Any

from service.json_depth import finite
from service.obsidian.json_depth import MAX_FILE_DEPTH, too_deep

NODE_TYPES = ("text", "file", "link", "group")
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
BACKGROUND_STYLES = ("cover", "ratio", "repeat")
PRESET_COLORS = {"1": "red", "2": "orange", "3": "yellow", "4": "green", "5": "cyan", "6": "purple"}
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
GEOMETRY = ("x", "y", "width", "height")

Problem = dict[str, str]


def is_canvas_path(path: str) -> bool:
    return path.lower().endswith(".canvas")


def not_canvas(column: str = "path") -> str:
    """SQL condition on an index path column that is true for notes and false for canvases
    (`LIKE` is case-insensitive for ASCII, as `.Canvas` is a canvas to Obsidian too)."""
    return f"{column} NOT LIKE '%.canvas'"


def is_color(value: object) -> bool:
    return isinstance(value, str) and (value in PRESET_COLORS or bool(_HEX.match(value)))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str_field(item: dict[str, Any], key: str, where: str, out: list[Problem], *, required: bool) -> None:
    if key not in item:
        if required:
            out.append({"where": where, "field": key, "problem": "missing"})
        return
    if not isinstance(item[key], str):
        out.append({"where": where, "field": key, "problem": "must be a string"})


def _choice(item: dict[str, Any], key: str, allowed: tuple[str, ...], where: str, out: list[Problem]) -> None:
    if key in item and item[key] not in allowed:
        out.append({"where": where, "field": key, "problem": f"must be one of {', '.join(allowed)}"})


def _color(item: dict[str, Any], where: str, out: list[Problem]) -> None:
    if "color" in item and not is_color(item["color"]):
        out.append({"where": where, "field": "color", "problem": "must be a hex colour (#RRGGBB) or a preset 1-6"})


def _node(node: object, index: int, out: list[Problem]) -> str | None:
    where = f"nodes[{index}]"
    if not isinstance(node, dict):
        out.append({"where": where, "field": "", "problem": "must be an object"})
        return None
    _str_field(node, "id", where, out, required=True)
    kind = node.get("type")
    if kind not in NODE_TYPES:
        out.append({"where": where, "field": "type", "problem": f"must be one of {', '.join(NODE_TYPES)}"})
    for key in GEOMETRY:
        if key not in node:
            out.append({"where": where, "field": key, "problem": "missing"})
        elif not _is_int(node[key]):
            out.append({"where": where, "field": key, "problem": "must be an integer"})
        elif key in ("width", "height") and node[key] <= 0:
            out.append({"where": where, "field": key, "problem": "must be positive"})
    _color(node, where, out)
    if kind == "text":
        _str_field(node, "text", where, out, required=True)
    elif kind == "file":
        _str_field(node, "file", where, out, required=True)
        _str_field(node, "subpath", where, out, required=False)
        sub = node.get("subpath")
        if isinstance(sub, str) and not sub.startswith("#"):
            out.append({"where": where, "field": "subpath", "problem": "must start with '#'"})
    elif kind == "link":
        _str_field(node, "url", where, out, required=True)
    elif kind == "group":
        _str_field(node, "label", where, out, required=False)
        _str_field(node, "background", where, out, required=False)
        _choice(node, "backgroundStyle", BACKGROUND_STYLES, where, out)
    ident = node.get("id")
    return ident if isinstance(ident, str) else None


def _edge(edge: object, index: int, node_ids: set[str], out: list[Problem]) -> str | None:
    where = f"edges[{index}]"
    if not isinstance(edge, dict):
        out.append({"where": where, "field": "", "problem": "must be an object"})
        return None
    _str_field(edge, "id", where, out, required=True)
    for key in ("fromNode", "toNode"):
        _str_field(edge, key, where, out, required=True)
        ref = edge.get(key)
        if isinstance(ref, str) and ref not in node_ids:
            out.append({"where": where, "field": key, "problem": f"no node with id {ref!r}"})
    _choice(edge, "fromSide", SIDES, where, out)
    _choice(edge, "toSide", SIDES, where, out)
    _choice(edge, "fromEnd", ENDS, where, out)
    _choice(edge, "toEnd", ENDS, where, out)
    _color(edge, where, out)
    _str_field(edge, "label", where, out, required=False)
    ident = edge.get("id")
    return ident if isinstance(ident, str) else None


def _duplicates(ids: list[str], kind: str, out: list[Problem]) -> None:
    seen: set[str] = set()
    for i, ident in enumerate(ids):
        if not ident:
            out.append({"where": f"{kind}[{i}]", "field": "id", "problem": "must not be empty"})
        elif ident in seen:
            out.append({"where": f"{kind}[{i}]", "field": "id", "problem": f"duplicate id {ident!r}"})
        seen.add(ident)


def problems(canvas: object) -> list[Problem]:
    """Every way `canvas` breaks JSON Canvas 1.0 (empty when it is valid)."""
    out: list[Problem] = []
    if not isinstance(canvas, dict):
        return [{"where": "canvas", "field": "", "problem": "must be a JSON object"}]
    nodes = canvas.get("nodes", [])
    edges = canvas.get("edges", [])
    for key, value in (("nodes", nodes), ("edges", edges)):
        if not isinstance(value, list):
            out.append({"where": "canvas", "field": key, "problem": "must be an array"})
    if out:
        return out
    node_ids = [i for n, node in enumerate(nodes) if (i := _node(node, n, out)) is not None]
    _duplicates(node_ids, "nodes", out)
    known = set(node_ids)
    edge_ids = [i for n, edge in enumerate(edges) if (i := _edge(edge, n, known, out)) is not None]
    _duplicates(edge_ids, "edges", out)
    return out


def nodes_of(canvas: object) -> list[dict[str, Any]]:
    """The node objects of a canvas read leniently (anything malformed is skipped)."""
    if not isinstance(canvas, dict) or not isinstance(canvas.get("nodes"), list):
        return []
    return [n for n in canvas["nodes"] if isinstance(n, dict)]


def edges_of(canvas: object) -> list[dict[str, Any]]:
    if not isinstance(canvas, dict) or not isinstance(canvas.get("edges"), list):
        return []
    return [e for e in canvas["edges"] if isinstance(e, dict)]


def file_refs(canvas: object) -> list[tuple[str, str | None]]:
    """(file, subpath) of every file node, in node order: the canvas's links to vault files."""
    refs: list[tuple[str, str | None]] = []
    for node in nodes_of(canvas):
        if node.get("type") == "file" and isinstance(node.get("file"), str) and node["file"]:
            sub = node.get("subpath")
            refs.append((node["file"], sub if isinstance(sub, str) else None))
    return refs


def searchable_text(canvas: object) -> str:
    """The words a canvas shows: text nodes, group labels and edge labels, one block each."""
    parts: list[str] = []
    for node in nodes_of(canvas):
        if node.get("type") == "text" and isinstance(node.get("text"), str):
            parts.append(node["text"])
        elif node.get("type") == "group" and isinstance(node.get("label"), str):
            parts.append(node["label"])
    parts.extend(e["label"] for e in edges_of(canvas) if isinstance(e.get("label"), str))
    return "\n\n".join(p for p in parts if p.strip())


def loads(text: str) -> object:
    """A canvas file's JSON; an empty file is an empty canvas, as Obsidian opens it. JSON nested
    deeper than `MAX_FILE_DEPTH` (or past the parser's recursion limit) is a ValueError like any
    other JSON it cannot read."""
    try:
        data = json.loads(text, parse_float=finite, parse_constant=finite) if text.strip() else {}
    except RecursionError:
        raise ValueError("nested deeper than JSON is read") from None
    if too_deep(data):
        raise ValueError(f"nested deeper than {MAX_FILE_DEPTH} levels")
    return whole_text(data) if _SURROGATE_ESCAPE.search(text) else data


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the escape of half a UTF-16 pair
_LONE = re.compile("[\ud800-\udfff]")


def whole_text(value: Any) -> Any:
    """`value` (parsed JSON) with each lone surrogate of its strings and keys as U+FFFD, as
    Obsidian shows one: JavaScript's JSON.stringify writes half a pair as `\\ud800`, which Python
    reads as a character that is no text (no UTF-8 for it, no JSON answer, no SQLite row)."""
    if isinstance(value, str):
        return value if _whole(value) else _LONE.sub("\ufffd", value)  # a pair was joined by the parser
    if isinstance(value, list):
        return [whole_text(v) for v in value]
    if isinstance(value, dict):
        return {whole_text(k): whole_text(v) for k, v in value.items()}
    return value


def _whole(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def dumps(canvas: dict[str, Any]) -> str:
    return json.dumps(canvas, indent="\t", ensure_ascii=False)
