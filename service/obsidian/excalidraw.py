"""Excalidraw drawings as the Obsidian Excalidraw plugin stores them: reading and writing the files.

Two forms. A plain `.excalidraw` file is the scene as JSON (`{type, version, source, elements,
appState, files}`). A drawing note (`.excalidraw.md`, or any note whose frontmatter has
`excalidraw-plugin`) is Markdown in this order:

    <header: frontmatter, then anything the user wrote ("back of the card")>
    # Excalidraw Data                     ("%%\\n" before it when the whole section is a comment)

    ## Text Elements
    <the text element's raw text> ^<its 8-character id>      (blank line after each)

    ## Element Links                      (when an element carries a link: "<id>: <link>")
    ## Embedded Files                     ("<fileId>: [[image.png]]", a URL, or "$$latex$$")
    %%
    ## Drawing
    ```compressed-json                    (LZ-string Base64 of the scene, 256 characters a line,
    <...>                                   lines separated by a blank line; or ```json)
    ```
    %%

The plugin takes each text element's text from the Text Elements section (the section wins
over the scene; Obsidian rewrites a renamed note's links there, not in the scene), so a rebuilt
section keeps the section's text for every element the call did not change and the call's text
for the others; block ids must be 8 characters (the plugin's parser reads exactly 8 after `^`):
a text element with any other id is refused on write. Older plugin versions wrote
`# Text Elements`, `# Embedded files` and `# Drawing`; a rebuilt part keeps the file's headings.

Writing keeps what it does not own byte for byte — the header, the Embedded Files section, the
text after the drawing block — and regenerates the rest the way the plugin does: the scene as
`JSON.stringify(scene, null, "\\t")` (`service.obsidian.jsjson`), compressed with
`service.obsidian.lzstring`, text elements in the section's order then the scene's. A scene
read and written back unchanged gives the same bytes (docs/bridges.md, "Excalidraw").
The scene's elements (validation, new elements, block ids) are `excalidraw_elements`.
Pure functions: no I/O, no settings; decompression is bounded by the caller's `max_chars`.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from service.obsidian import jsjson, lzstring
from service.obsidian.excalidraw_elements import BLOCK_ID, element_text, elements_of, live
from service.obsidian.json_depth import MAX_FILE_DEPTH, too_deep

PLUGIN_KEY = "excalidraw-plugin"
CHUNK = 256  # characters per line of the compressed block, as the plugin wraps it

_DRAWING = re.compile(r"\n##? Drawing\n[^`]*```(compressed-json|json)\n(.*?)```", re.S)
_DATA_HEADING = re.compile(r"^(%%\n+)?# Excalidraw Data(?:\n|$)", re.M)
_TEXT_HEADING = re.compile(r"^(%%\n+)?##? Text Elements(?:\n|$)", re.M)
_BLOCK_REF = re.compile(r"\s\^(.{8})\n+")
_LINKS_HEADING = re.compile(r"^##? Element Links\n", re.M)
_FILES_HEADING = re.compile(r"^(?:## Embedded Files|# Embedded files)\n", re.M)
_LINK_LINE = re.compile(r"^(.{8}):\s*(.*)$", re.M)
_FILE_LINE = re.compile(r"([\w\d]*):\s*!?\[\[([^\]]*)]]\s*(\{[^}]*})?\n")
_URL_LINE = re.compile(r"([\w\d]*):\s*((?:https?|file|ftps?)://[^\s]*)\n")
_EQUATION_LINE = re.compile(r"([\w\d]*):\s*\$\$([\s\S]*?)(\$\$\s*\n)")
_TEXT_LINK = re.compile(r"\[\[|\]\(|://")
_FRONTMATTER_KEY = re.compile(r"^excalidraw-plugin\s*:", re.M)

NEW_HEADER = "---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n\n"

Form = Literal["markdown", "json"]


class DrawingError(ValueError):
    """A file that is not a drawing this module can read (`reason` names why)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class Embedded:
    file_id: str
    target: str
    kind: Literal["file", "url", "equation"]


@dataclass
class Drawing:
    """A drawing file taken apart; `render` puts it back together."""

    form: Form
    compressed: bool
    scene: dict[str, Any]
    header: str = ""  # markdown: everything before the data section, kept as is
    commented: bool = False  # the data section starts with "%%" (all of it is a comment)
    # The headings as the file writes them (older plugin versions wrote "# Text Elements" and
    # "# Drawing"), reused when the section or the block is rebuilt.
    lead: str = "# Excalidraw Data\n\n## Text Elements\n"
    drawing_lead: str = "## Drawing\n"
    gap: str = ""  # between the last text element and the next heading
    section_texts: dict[str, str] = field(default_factory=dict)  # Text Elements: id -> raw text, in order
    section_links: dict[str, str] = field(default_factory=dict)  # Element Links: id -> link
    embedded_raw: str = ""  # the Embedded Files section as written (heading included)
    embedded: list[Embedded] = field(default_factory=list)
    tail: str = "\n%%"  # after the drawing block's closing fence
    text: str = ""  # the file as read
    # As read, to write back unchanged what did not change: the scene, the data section (from
    # its heading to "## Drawing") and the drawing block ("## Drawing" to its closing fence).
    original: dict[str, Any] | None = None
    section_raw: str = ""
    block_raw: str = ""


def is_drawing_note(text: str) -> bool:
    """Whether a note's frontmatter marks it as a drawing (`excalidraw-plugin: parsed|raw|locked`)."""
    if not text.startswith("---"):
        return False
    end = text.find("\n---", 3)
    return end > 0 and bool(_FRONTMATTER_KEY.search(text[3:end]))


# -- reading ---------------------------------------------------------------------------------


def _scene(text: str) -> dict[str, Any]:
    try:
        scene = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DrawingError("invalid_json", f"the scene is not valid JSON: {exc}") from None
    if not isinstance(scene, dict):
        raise DrawingError("invalid_scene", "the scene is not a JSON object")
    if too_deep(scene):
        raise DrawingError("too_deep", f"the scene nests deeper than {MAX_FILE_DEPTH} levels")
    return scene


def parse_json(text: str) -> Drawing:
    """A plain `.excalidraw` file (an empty file is an empty scene)."""
    scene = _scene(text) if text.strip() else new_scene()
    return Drawing(form="json", compressed=False, scene=scene, text=text, original=copy.deepcopy(scene))


def parse_markdown(text: str, *, max_chars: int) -> Drawing:
    """A drawing note. `lzstring.DecompressTooLarge` past `max_chars` characters of scene."""
    m = _DRAWING.search(text)
    if m is None:
        raise DrawingError("no_drawing", "no '## Drawing' section with a ```json or ```compressed-json block")
    compressed = m.group(1) == "compressed-json"
    body = m.group(2)
    if compressed:
        json_text = lzstring.decompress_from_base64(body, max_chars=max_chars)
        if not json_text:
            raise DrawingError("invalid_compressed", "the compressed-json block does not decompress")
    else:
        if len(body) > max_chars:
            raise lzstring.DecompressTooLarge(len(body), max_chars)
        json_text = body
    json_text = json_text[: json_text.rfind("}") + 1]  # as the plugin reads it: up to the last brace
    scene = _scene(json_text)
    drawing = Drawing(form="markdown", compressed=compressed, scene=scene, text=text, original=copy.deepcopy(scene))
    drawing.tail = text[m.end() :]
    drawing.block_raw = text[m.start() + 1 : m.end()]
    drawing.drawing_lead = text[m.start() + 1 : m.start(1) - 3]  # "## Drawing\n" up to the fence
    front = text[: m.start() + 1]  # up to and including the newline before "## Drawing"
    heading = _DATA_HEADING.search(front) or _TEXT_HEADING.search(front)
    if heading is None:  # no data section: the header is what precedes "%%\n## Drawing"
        drawing.header = front[:-3] if front.endswith("%%\n") else front
    else:
        drawing.header = front[: heading.start()]
        drawing.commented = heading.group(1) is not None
        _read_sections(drawing, front[heading.start() :])
    drawing.section_raw = front[len(drawing.header) :]
    return drawing


def _read_sections(drawing: Drawing, data: str) -> None:
    start = _TEXT_HEADING.search(data)
    if start is not None:
        drawing.lead = data[: start.end()]
    texts = data[start.end() :] if start else ""
    links = _LINKS_HEADING.search(data)
    files = _FILES_HEADING.search(data)
    cuts = [h.start() - (start.end() if start else 0) for h in (links, files) if h is not None]
    listed = texts[: min(cuts)] if cuts and min(cuts) >= 0 else texts
    position = 0
    for ref in _BLOCK_REF.finditer(listed):
        drawing.section_texts[ref.group(1)] = listed[position : ref.start()]
        position = ref.start() + 12  # " ^12345678\n\n": the plugin steps over exactly this
    if drawing.section_texts and not listed[position:].strip():
        drawing.gap = listed[position:]  # blank lines older versions left before the next heading
    if links is not None:
        end = files.start() if files is not None and files.start() > links.start() else len(data)
        for line in _LINK_LINE.finditer(data[links.end() : end]):
            drawing.section_links[line.group(1)] = line.group(2)
    if files is not None:
        raw = data[files.start() :]
        drawing.embedded_raw = raw[:-3] if raw.endswith("%%\n") else raw
        rest = raw[files.end() - files.start() :]
        drawing.embedded += [Embedded(f.group(1), f.group(2), "file") for f in _FILE_LINE.finditer(rest)]
        drawing.embedded += [Embedded(u.group(1), u.group(2), "url") for u in _URL_LINE.finditer(rest)]
        equations = _EQUATION_LINE.finditer(rest)
        drawing.embedded += [Embedded(q.group(1), q.group(2).strip(), "equation") for q in equations]


# -- writing ---------------------------------------------------------------------------------


def new_scene() -> dict[str, Any]:
    return {
        "type": "excalidraw",
        "version": 2,
        "source": "vaultgate",
        "elements": [],
        "appState": {"gridSize": None, "viewBackgroundColor": "#ffffff"},
        "files": {},
    }


def new_drawing() -> Drawing:
    return Drawing(form="markdown", compressed=True, scene=new_scene(), header=NEW_HEADER, tail="\n%%\n")


def compressed_block(json_text: str) -> str:
    packed = lzstring.compress_to_base64(json_text)
    return "\n\n".join(packed[i : i + CHUNK] for i in range(0, len(packed), CHUNK))


def _section(drawing: Drawing) -> str:
    elements = elements_of(drawing.scene)
    before = {e.get("id"): e for e in elements_of(drawing.original)} if drawing.original is not None else {}

    def text_of(e: dict[str, Any]) -> str:
        # The section wins over the scene (Obsidian rewrites a renamed note's links there, not in
        # the scene): an element the call did not change keeps the section's text.
        old = before.get(e["id"])
        if e["id"] in drawing.section_texts and old is not None and element_text(old) == element_text(e):
            return drawing.section_texts[e["id"]]
        return element_text(e)

    def link_of(e: dict[str, Any]) -> str:
        old = before.get(e["id"])
        if e["id"] in drawing.section_links and old is not None and old.get("link") == e["link"]:
            return drawing.section_links[e["id"]]
        return str(e["link"])

    texts = {e["id"]: text_of(e) for e in live(elements) if e.get("type") == "text" and isinstance(e.get("id"), str)}
    order = [i for i in drawing.section_texts if i in texts] + [i for i in texts if i not in drawing.section_texts]
    out = [drawing.lead]
    out += [f"{texts[i]} ^{i}\n\n" for i in order]
    out.append(drawing.gap)
    links = [
        (e["id"], link_of(e))
        for kind in (False, True)  # the plugin lists other elements' links, then text elements'
        for e in live(elements)
        if (e.get("type") == "text") is kind and isinstance(e.get("link"), str) and e["link"]
        if isinstance(e.get("id"), str) and BLOCK_ID.match(e["id"])
        # a text's link that comes from its own words ([[note]], a URL) is found there again
        # when the plugin loads it: listed only for a text without one
        if not (kind and (e.get("hasTextLink") or _TEXT_LINK.search(text_of(e))))
    ]
    if links:
        out.append("## Element Links\n")
        out += [f"{ident}: {link}\n\n" for ident, link in links]
    out.append(drawing.embedded_raw)
    out.append("" if drawing.commented else "%%\n")
    return "".join(out)


def _listing(scene: dict[str, Any] | None) -> list[tuple[str, str, object]]:
    """What the data section says about a scene: its text elements and the elements' links."""
    if scene is None:
        return []
    return [
        (str(e.get("id")), element_text(e) if e.get("type") == "text" else "", e.get("link"))
        for e in live(elements_of(scene))
        if e.get("type") == "text" or e.get("link")
    ]


def render(drawing: Drawing) -> str:
    """The file's text for `drawing.scene`. What did not change since it was read is written back
    as it was (a scene read and written unchanged is the same bytes, even where the file was not
    written the way the plugin writes it); the rest is rebuilt the way the plugin writes it."""
    unchanged = drawing.original is not None and drawing.scene == drawing.original
    if drawing.form == "json":
        return drawing.text if unchanged else jsjson.stringify(drawing.scene)
    if unchanged and drawing.block_raw:
        block = drawing.block_raw
    elif drawing.compressed:
        block = f"{drawing.drawing_lead}```compressed-json\n{compressed_block(jsjson.stringify(drawing.scene))}\n```"
    else:
        block = f"{drawing.drawing_lead}```json\n{jsjson.stringify(drawing.scene)}\n```"
    same_section = drawing.section_raw and _listing(drawing.scene) == _listing(drawing.original)
    section = drawing.section_raw if same_section else _section(drawing)
    return drawing.header + section + block + drawing.tail


def without_scene(body: str) -> str:
    """A drawing note's text with its scene block emptied (its line breaks kept, so line numbers
    do not move): the index takes the Text Elements section's words, not the scene's JSON or
    Base64, which would only be noise in full-text and semantic search."""
    m = _DRAWING.search(body)
    if m is None:
        return body
    start, end = m.span(2)
    return body[:start] + "\n" * body.count("\n", start, end) + body[end:]
