"""The elements of an Excalidraw scene: what the plugin can open, and elements made from short ones.

`problems` lists every way a list of elements breaks what the editor saves (one
`{where, field, problem}` record each, all at once); `with_block_ids` gives text elements the
8-character ids the plugin's Text Elements section needs (the plugin does the same on load);
`new_elements` fills in a full element — and a shape's centred label — from a type, a position
and a few optional fields. Pure functions over JSON values.
"""

from __future__ import annotations

import math
import random
import re
import time
from typing import Any

# Every element type the Excalidraw editor saves ("selection" is a transient one).
ELEMENT_TYPES = (
    "rectangle",
    "diamond",
    "ellipse",
    "arrow",
    "line",
    "freedraw",
    "text",
    "image",
    "frame",
    "magicframe",
    "embeddable",
    "iframe",
)
GEOMETRY = ("x", "y", "width", "height")
BLOCK_ID = re.compile(r"^[A-Za-z0-9_-]{8}$")


def elements_of(scene: dict[str, Any]) -> list[dict[str, Any]]:
    raw = scene.get("elements")
    return [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []


def live(elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The elements the drawing shows (deleted ones stay in the file until the plugin drops them)."""
    return [e for e in elements if not e.get("isDeleted")]


def element_text(element: dict[str, Any]) -> str:
    """A text element's raw text (Markdown, links unparsed), as the plugin lists it."""
    for key in ("rawText", "originalText", "text"):
        value = element.get(key)
        if isinstance(value, str) and value != "":
            return value
    return ""


# -- validation ------------------------------------------------------------------------------

Problem = dict[str, str]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def problems(elements: list[Any]) -> list[Problem]:
    """Every way a list of scene elements breaks what the plugin can open (empty when fine)."""
    out: list[Problem] = []
    seen: set[str] = set()
    for i, element in enumerate(elements):
        where = f"elements[{i}]"
        if not isinstance(element, dict):
            out.append({"where": where, "field": "", "problem": "must be an object"})
            continue
        ident = element.get("id")
        if not isinstance(ident, str) or not ident:
            out.append({"where": where, "field": "id", "problem": "must be a non-empty string"})
        elif ident in seen:
            out.append({"where": where, "field": "id", "problem": f"duplicate id {ident!r}"})
        else:
            seen.add(ident)
        kind = element.get("type")
        if kind not in ELEMENT_TYPES:
            out.append({"where": where, "field": "type", "problem": f"must be one of {', '.join(ELEMENT_TYPES)}"})
        for key in GEOMETRY:
            if key not in element:
                out.append({"where": where, "field": key, "problem": "missing"})
            elif not _is_number(element[key]):
                out.append({"where": where, "field": key, "problem": "must be a finite number"})
        if kind == "text" and not element.get("isDeleted"):
            if not isinstance(element.get("text"), str):
                out.append({"where": where, "field": "text", "problem": "missing (a text element needs its text)"})
            if isinstance(ident, str) and ident and not BLOCK_ID.match(ident):
                why = "a text element's id is its block id: 8 letters or digits"
                out.append({"where": where, "field": "id", "problem": why})
        for key in ("link", "containerId", "frameId"):
            if key in element and element[key] is not None and not isinstance(element[key], str):
                out.append({"where": where, "field": key, "problem": "must be a string or null"})
    return out


# -- new elements ----------------------------------------------------------------------------

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def new_id(taken: set[str], rng: random.Random) -> str:
    while True:
        ident = "".join(rng.choice(_ALPHABET) for _ in range(8))
        if ident not in taken:
            taken.add(ident)
            return ident


def with_block_ids(elements: list[Any], rng: random.Random) -> tuple[list[Any], dict[str, str]]:
    """Text elements whose id cannot be a block id (the editor's own ids are 21 characters) get
    a new 8-character one, as the plugin gives them on load, and every reference to them follows
    (a container's bound elements, a text's container, an arrow's bindings). An id used twice is
    left for validation to report."""
    ids = [e.get("id") for e in elements if isinstance(e, dict)]
    taken = {i for i in ids if isinstance(i, str)}
    renamed: dict[str, str] = {}
    for e in elements:
        if not isinstance(e, dict) or e.get("type") != "text" or e.get("isDeleted"):
            continue
        ident = e.get("id")
        if isinstance(ident, str) and ident and not BLOCK_ID.match(ident) and ids.count(ident) == 1:
            renamed[ident] = new_id(taken, rng)
    if not renamed:
        return elements, {}
    out: list[Any] = []
    for e in elements:
        if isinstance(e, dict):
            e = dict(e)
            for key in ("id", "containerId"):
                if e.get(key) in renamed:
                    e[key] = renamed[e[key]]
            if isinstance(e.get("boundElements"), list):
                e["boundElements"] = [
                    {**b, "id": renamed[b["id"]]} if isinstance(b, dict) and b.get("id") in renamed else b
                    for b in e["boundElements"]
                ]
            for key in ("startBinding", "endBinding"):
                bound = e.get(key)
                if isinstance(bound, dict) and bound.get("elementId") in renamed:
                    e[key] = {**bound, "elementId": renamed[bound["elementId"]]}
        out.append(e)
    return out, renamed


def text_size(text: str, font_size: float) -> tuple[float, float]:
    """A text element's box, estimated (the plugin re-measures it on open)."""
    lines = text.split("\n")
    return round(max(len(line) for line in lines) * font_size * 0.55, 2), round(len(lines) * font_size * 1.25, 2)


def new_elements(spec: dict[str, Any], ident: str, taken: set[str], rng: random.Random) -> list[dict[str, Any]]:
    """A shape from a short one; a rectangle, ellipse or diamond with `text` also gets its label:
    a text element bound to it, centred (the text's id is a new one)."""
    if spec["type"] == "text" or not spec.get("text"):
        return [new_element(spec, ident, rng)]
    shape = new_element({k: v for k, v in spec.items() if k != "text"}, ident, rng)
    label_id = new_id(taken, rng)
    width, height = text_size(spec["text"], spec.get("font_size", 20))
    label = new_element(
        {
            **spec,
            "type": "text",
            "x": shape["x"] + (shape["width"] - width) / 2,
            "y": shape["y"] + (shape["height"] - height) / 2,
            "width": width,
            "height": height,
            "link": None,
        },
        label_id,
        rng,
    )
    label |= {"containerId": ident, "textAlign": "center", "verticalAlign": "middle"}
    shape["boundElements"] = [{"type": "text", "id": label_id}]
    return [shape, label]


def new_element(spec: dict[str, Any], ident: str, rng: random.Random) -> dict[str, Any]:
    """A full Excalidraw element from a short one (`type`, `x`, `y`, size, text, colours, link)."""
    kind = spec["type"]
    width = spec.get("width")
    height = spec.get("height")
    font_size = spec.get("font_size", 20)
    if kind == "text":
        guess_w, guess_h = text_size(spec["text"], font_size)
        width = guess_w if width is None else width
        height = guess_h if height is None else height
    width = 100 if width is None else width
    height = (0 if kind in ("arrow", "line") else 100) if height is None else height
    dx, dy = width, height  # an arrow or line runs from (x, y) by (dx, dy); its box is the extent
    width, height = abs(width), abs(height)
    element: dict[str, Any] = {
        "id": ident,
        "type": kind,
        "x": spec["x"],
        "y": spec["y"],
        "width": width,
        "height": height,
        "angle": 0,
        "strokeColor": spec.get("stroke_color") or "#1e1e1e",
        "backgroundColor": spec.get("background_color") or "transparent",
        "fillStyle": "solid",
        "strokeWidth": 2,
        "strokeStyle": "solid",
        "roughness": 1,
        "opacity": 100,
        "groupIds": [],
        "frameId": None,
        "roundness": {"type": 3} if kind == "rectangle" else ({"type": 2} if kind in ("diamond", "ellipse") else None),
        "seed": rng.randint(1, 2**31 - 1),
        "version": 1,
        "versionNonce": rng.randint(1, 2**31 - 1),
        "isDeleted": False,
        "boundElements": [],
        "updated": int(time.time() * 1000),
        "link": spec.get("link"),
        "locked": False,
    }
    if kind == "text":
        element |= {
            "text": spec["text"],
            "rawText": spec["text"],
            "originalText": spec["text"],
            "fontSize": font_size,
            "fontFamily": 1,
            "textAlign": "left",
            "verticalAlign": "top",
            "containerId": None,
            "autoResize": True,
            "lineHeight": 1.25,
        }
    elif kind in ("arrow", "line"):
        element |= {
            "points": [[0, 0], [dx, dy]],
            "lastCommittedPoint": None,
            "startBinding": None,
            "endBinding": None,
            "startArrowhead": None,
            "endArrowhead": "arrow" if kind == "arrow" else None,
        }
    return element
