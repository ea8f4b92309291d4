"""The Markdown form of one memory entity: a note a person reads, edits and links in Obsidian.

```
---
name: "AC/DC"
entityType: band
aliases: []
created: 2026-11-28T07:50:00Z
updated: 2026-11-28T07:51:00Z
---
# AC/DC

## Observations
- [fact] Formed in Sydney #music (from the liner notes) [recorded:: 2026-11-28] [by:: 3f9a1c02] ^m-hol1v4ldwn5x

## Relations
- member_of [[Memory/Rock bands|Rock bands]]
```

Observations are the list items under `## Observations` (any marker CommonMark and Obsidian take:
`-`, `*`, `+`, `1.`, `1)`, spaces or a tab after it, up to three spaces before it; not an item
nested in another, not a thematic break; the marker is kept as read, and a new item continues the
section's list: `service.memory.body`): an optional `[category]`, the text
(tags and a `(context)` kept in it), provenance as Dataview inline fields and an Obsidian block
id. A `::` in a text or field value gets a backslash before its second colon, and a text that
starts with `[` one before the bracket (Markdown escapes, shown as typed in Obsidian; `escape`,
`unescape`), so what an agent gives reads back as given, never as provenance, a category or a
task box of its own. Relations are the list items under `## Relations` (likewise): a relation type and
one wikilink. A line of a code block is code, never an item. Every other line of the body (a
person's paragraph, blank line, callout, comment, heading, what comes before and after the
sections) is kept where it is, byte for byte (`Entity.lines`, `service.memory.body`): a memory
write changes only the memory's own lines.

`file_name` maps any entity name to a safe, reversible file name (the real name stays in the
frontmatter): characters a file name cannot hold (and `~`) are written `~XX`, and names that would be
special (`..`, a leading dot, Windows device names) are prefixed; a name too long for a file
name is cut at a character and ends with a hash of the whole name.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from service.errors import ValidationFailed
from service.markdown import fences, line_ends
from service.markdown.frontmatter import split, write_refusal
from service.memory.body import OBS_HEADING, REL_HEADING, Line, columns, content_column, item_start, lines_of
from service.memory.front import kept_front
from service.vault.invisible import shows_nothing
from service.vault.paths import with_md

_SECTIONS = {"observations": "obs", "relations": "rel"}  # a person's `## observations` too
# a level-2 ATX heading's text: `## Observations`, `##  Observations ##` (a closing sequence)
_HEADING2 = re.compile(r"##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")

# - [category] text [key:: value]... ^block (a value may hold wikilinks: [source:: [[Note]]])
_VALUE = r"(?:[^\[\]]|\[\[[^\[\]]*\]\])*"
_OBS = re.compile(
    r"(?:\[(?P<category>[^\]\[:]{1,60})\] )?(?P<text>.*?)(?P<fields>(?: \[[a-z_]+:: " + _VALUE + r"\])*)"
    r"(?: \^(?P<block>[A-Za-z0-9-]+))?\s*$"
)
_FIELD = re.compile(r"\[([a-z_]+):: (" + _VALUE + r")\]")
_REL = re.compile(r"(?P<type>[^\[\]]{1,100}?) \[\[(?P<target>[^\]|#]+)(?:\|[^\]]*)?\]\]\s*$")
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]`%~\x00-\x1f\x7f]')
_ESCAPABLE = re.compile(r"(\\*)([:\[])")  # a ':' or '[' and the backslashes right before it
_TAG = re.compile(r"(?<![^\s(])#([\w/-]+)")  # Obsidian's: after a space (or an opening parenthesis)
_STEM_CHARS = 180  # an entity's file name, without `.md`: what fits is kept whole (`file_name`)
_STEM_BYTES = 252
_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


@dataclass(slots=True)
class Observation:
    text: str
    category: str | None = None
    block_id: str = ""
    fields: dict[str, str] = field(default_factory=dict)  # provenance: recorded, by, source, date
    raw: str | None = None  # the line as read: written back unchanged (a person's own wording)
    marker: str = "- "  # its list item's start as read (`1. `, `*\t`, ` - `): kept when the line changes

    def render(self) -> str:
        if self.raw is not None:
            return self.raw
        if not self.block_id:
            self.block_id = new_block_id()
        head = f"[{self.category}] " if self.category else ""
        extra = "".join(f" [{k}:: {escape(v)}]" for k, v in self.fields.items() if v)
        return f"{self.marker}{head}{escape(self.text, first=True)}{extra} ^{self.block_id}"


@dataclass(frozen=True, slots=True)
class Relation:
    relation_type: str
    target: str  # the target's link text (a note path without .md, or a name)
    marker: str = field(default="- ", compare=False)  # its list item's start as read

    def render(self) -> str:
        return f"{self.marker}{self.relation_type} [[{self.target}]]"


@dataclass(slots=True)
class Entity:
    name: str
    entity_type: str
    aliases: list[str] = field(default_factory=list)
    created: str = ""
    updated: str = ""
    observations: list[Observation] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    title: str | None = None  # the `# title` line as read ("": none); None: a new entity's note, titled with its name
    lines: list[Line] | None = None  # the body as read, line by line (`service.memory.body`); None: a new note
    other_properties: dict[str, Any] = field(default_factory=dict)
    # a memory property read in another type (`entityType: {kind: person}`, `aliases: 5`): its value
    # as written and as the entity holds it; written back as written while the entity's is unchanged
    given: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    fm_error: str | None = None  # why its writes are refused (`frontmatter.write_refusal`): `invalid_frontmatter`
    # the frontmatter as read (its YAML, its keys, its memory properties): kept as written (`front.kept_front`)
    front_read: tuple[str, frozenset[str], dict[str, Any]] | None = None
    headings: dict[str, str] = field(default_factory=dict)  # "obs"/"rel" -> its section's heading as read
    newline: str = "\n"  # the note's line end (`line_ends.ending`): read on the LF form, written back with it


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_ORDERED = re.compile(r"m-([0-9a-z]{10})[0-9a-z]{2}")


def _base36(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        n, d = divmod(n, 36)
        out.append(_DIGITS[d])
    return "".join(reversed(out))


class _Clock:
    """Microseconds that never repeat or go back within the process."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def tick(self) -> int:
        with self._lock:
            self._last = max(time.time_ns() // 1000, self._last + 1)
            return self._last


_CLOCK = _Clock()


def new_block_id() -> str:
    """`m-`, the microsecond it was made (10 base-36 digits) and 2 random ones: block ids sort in
    the order observations were recorded, across entity notes (`recorded_order`)."""
    return "m-" + _base36(_CLOCK.tick(), 10) + _base36(secrets.randbelow(36 * 36), 2)


def recorded_order(block_id: str) -> int | None:
    """When an observation with a block id from `new_block_id` was recorded (µs since the epoch);
    None for another id (an older one, or one a person wrote)."""
    m = _ORDERED.fullmatch(block_id)
    return int(m.group(1), 36) if m else None


@lru_cache(maxsize=65_536)  # an entity's observations are compared with each new one
def normalize_text(text: str) -> str:
    """What two observations are compared by: case, spacing and end punctuation aside."""
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(".!;")


_WIKILINK = re.compile(r"\[\[(?P<target>[^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")


def linked_stem(name: str, folder: str) -> str | None:
    """The note an entity argument that is one whole `[[wikilink]]` names, as a stem of the memory
    folder (`[[Memory/Ann Lee.md|Ann]]` is 'Ann Lee'); None for a plain name (`AC/DC` stays a name)."""
    link = _WIKILINK.fullmatch(name)
    if link is None:
        return None
    target = link.group("target").strip().removesuffix(".md")
    prefix = folder.strip().strip("/") + "/"
    return target[len(prefix) :] if target.lower().startswith(prefix.lower()) else target


def _piece(char: str) -> str:
    """`char` as an entity's file name holds it: `~XX` for what a file name cannot hold or a new
    name may not (a control, a character that shows nothing: `shows_nothing`)."""
    if _UNSAFE.fullmatch(char) or "\x80" <= char <= "\x9f" or shows_nothing(char):
        return f"~{ord(char):02X}"
    return char


def file_name(name: str) -> str:
    """A safe file name (without `.md`) for an entity name: one `~XX` per character a file name
    cannot hold or a new name may not (`_piece`), so two names never share a file; the real name
    stays in the frontmatter.

    A name whose file name would be longer than 180 characters or 252 UTF-8 bytes (a segment
    with `.md` is at most 255 bytes) keeps as many whole characters as fit, never half an escape,
    and ends with `~h` and 16 hex digits of the full name's SHA-256: `~h` is no escape, so such a
    file name is never one of a name that fits, and two long names sharing a start still differ."""
    text = name.strip()
    prefix = ""
    out = "".join(_piece(char) for char in text)
    if out.startswith(".") or out.split(".")[0].lower() in _DEVICES or out.endswith((".", " ")):
        prefix = "~_"
    out = prefix + out
    if len(out) <= _STEM_CHARS and len(out.encode("utf-8")) <= _STEM_BYTES:
        return out
    suffix = "~h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    chars, size = len(prefix) + len(suffix), len(prefix) + len(suffix)
    kept: list[str] = [prefix]
    for char in text:
        piece = _piece(char)
        chars += len(piece)
        size += len(piece.encode("utf-8"))
        if chars > _STEM_CHARS or size > _STEM_BYTES:
            break
        kept.append(piece)
    return "".join(kept) + suffix


def escape(text: str, *, first: bool = False) -> str:
    """`text` as written on an observation line: the second colon of every `::` (an inline
    field's mark, for this parser and for Dataview's) and, when `first`, a leading `[` that does
    not open a wikilink (a category or a task box) get a backslash; backslashes right before a
    `:` or `[` are doubled, so `unescape` gives `text` back exactly."""

    def one(m: re.Match[str]) -> str:
        slashes, char = m.group(1), m.group(2)
        at = m.start(2)
        if char == ":":
            forged = not slashes and at > 0 and text[at - 1] == ":"
        else:
            forged = first and at == 0 and not text.startswith("[[")
        return slashes * 2 + ("\\" if forged else "") + char

    return _ESCAPABLE.sub(one, text)


def unescape(text: str) -> str:
    """The text `escape` was given: a run of backslashes before a `:` or `[` is halved."""
    return _ESCAPABLE.sub(lambda m: m.group(1)[: len(m.group(1)) // 2] + m.group(2), text)


def tags_of(text: str) -> list[str]:
    """The `#tags` an observation's text holds (a tag given with it is written there), in order."""
    return list(dict.fromkeys(t for t in _TAG.findall(text) if not t.isdigit()))


def one_line(text: str) -> str:
    return " ".join(text.split())


_ESCAPED = re.compile(r"~([0-9A-F]{2})")


def name_of_file(stem: str) -> str:
    """The entity name whose file name (`file_name`) is `stem`: its `~XX` read back (a stem cut
    with a hash keeps its `~h…`; a `~` that is no escape stays)."""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), stem.removeprefix("~_")).strip()


def parse(text: str, stem: str = "") -> Entity:
    """The entity a note holds; lines without a memory shape are kept. A note whose frontmatter
    does not parse (a YAML typo, an alias bomb) has no `name` to read: it is named by its first
    `# title`, else by its file name `stem` (`name_of_file`), so every read lists it as open_nodes
    finds it; its writes are refused (`store.EntityStore._write`). A note is read by its lines
    whatever ends them (CR, LF, CRLF, in any mix: `line_ends.view`) and written back with each
    line's own end (`render` over the note's text)."""
    newline = line_ends.ending(text)
    text = line_ends.view(text)
    fm = split(text)
    data = fm.data if isinstance(fm.data, dict) else {}
    body = text[fm.body_start :]
    name = str(data.get("name") or "")
    aliases_raw = data.get("aliases") or []
    aliases = [str(a) for a in aliases_raw] if isinstance(aliases_raw, list) else [str(aliases_raw)]
    known = {"name", "entityType", "aliases", "created", "updated"}
    entity = Entity(
        name=name,
        entity_type=str(data.get("entityType") or ""),
        aliases=aliases,
        created=str(data.get("created") or ""),
        updated=str(data.get("updated") or ""),
        other_properties={k: v for k, v in data.items() if k not in known},
        newline=newline,
        title="",
    )
    if fm.raw is not None and fm.error is None:
        entity.front_read = (fm.raw, frozenset(data), _memory_properties(entity))
    for key, held in (("name", name), ("entityType", entity.entity_type), ("aliases", aliases)):
        raw = data.get(key)
        if key in data and raw is not None and not _plain(raw, list if key == "aliases" else str):
            entity.given[key] = (raw, list(held) if isinstance(held, list) else held)  # a copy: edits in place show
    section, lines = "pre", list[Line]()
    entity.lines = lines
    titled, code, comments, open_from = False, fences.CodeScanner(), fences.Comments(), None
    listed: int | None = None  # the column the section's last top-level item's text starts at
    gap = False  # a blank line since the last line of text
    for no, line in enumerate(body.split("\n")):
        stripped = line.rstrip()
        hidden = _hidden(line, code, comments)  # a line of code or of a comment: no heading, no item
        if code._fence is None and not (comments.percent or comments.html):  # noqa: SLF001 - no block open after it
            open_from = None
        elif open_from is None:
            open_from = no  # the line opening a code block or a comment (closed later, or never)
        if hidden:
            lines.append((section, None, line))
            continue
        if stripped.startswith("#"):
            heading = _HEADING2.fullmatch(stripped)  # in any letter case, kept as written
            if heading and (kind := _SECTIONS.get(heading.group(1).casefold())) is not None:
                section, entity.headings[kind] = kind, stripped
                lines.append((kind + "#", None, line))
                listed = None
                continue
            if section != "pre":
                section, listed = "tail", None
        start, listed, gap = _top_item(stripped, listed, gap) if section in ("obs", "rel") else (None, None, False)
        item: Observation | Relation | None = None
        if section == "pre" and not titled and stripped.startswith("# "):
            titled = True
            entity.title = line
            entity.name = entity.name or stripped[2:].strip()
        elif section == "obs" and start is not None and (m := _OBS.match(stripped, len(start))):
            if m.group("text").strip():
                fields = {k: unescape(v) for k, v in _FIELD.findall(m.group("fields") or "")}
                text = unescape(m.group("text").strip())
                item = Observation(text, m.group("category"), m.group("block") or "", fields, stripped, start)
                entity.observations.append(item)
        elif section == "rel" and start is not None and (m := _REL.match(stripped, len(start))):
            item = Relation(m.group("type"), m.group("target").strip(), start)
            entity.relations.append(item)
        lines.append((section, item, line))
    if open_from is not None:  # a block never closed: the rest of the note is in it, no new item goes there
        lines[open_from:] = [("open", item, line) for _, item, line in lines[open_from:]]
    entity.fm_error = write_refusal(fm)
    if not entity.name and fm.error is not None and stem:
        entity.name = name_of_file(stem)
    return entity


def _top_item(line: str, listed: int | None, gap: bool) -> tuple[str | None, int | None, bool]:
    """A memory section's line read in order: the start of the top-level list item it begins
    (`body.item_start`; None: text, a nested item — indented to the text of the item above it —
    or a line continuing one), the column the list's items' text starts at after it, and whether
    a blank line came last. A paragraph after a blank line, less indented than that, ends the list."""
    if not line.strip():
        return None, listed, True
    indent = len(line) - len(line.lstrip(" \t"))
    nested = listed is not None and columns(line[:indent]) >= listed
    start = None if nested else item_start(line)
    if start is not None:
        return start, content_column(start), False
    return None, None if gap and not nested else listed, False


def _hidden(line: str, code: fences.CodeScanner, comments: fences.Comments) -> bool:
    """Whether a body line (fed in order) is code or inside a comment (`%%` … `%%`, `<!--` … `-->`),
    as `fences.outside_code` reads them: what Obsidian shows as no heading and no list item."""
    is_code = code.code(line)
    if comments.percent or comments.html:
        is_code = comments.seen(code, line, is_code)
    if is_code:
        return True
    if comments.percent or comments.html or "%%" in line or "<!--" in line:
        return comments.inside(fences.mask_inline_code(line) if "`" in line else line, code)
    return False


def not_left_open(note: str) -> None:
    """`validation_error` (reason `left_open`) when the note's body (its frontmatter aside) ends
    inside a code block or a comment it never closes: text appended there would show as code, or
    not at all, in Obsidian (and a block id there names no block)."""
    if fences.left_open(note[split(note).body_start :].split("\n")) is not None:
        raise ValidationFailed(
            "the note ends inside a code block or comment it never closes: text added at its end would not show",
            details={"reason": "left_open"},
            hint="Close the block in the note first, or file into another note.",
        )


_YAML_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _yaml_json(value: Any) -> str:
    """`value` as JSON, which YAML reads back: with the characters YAML takes for line breaks
    (NEL, U+2028, U+2029; JSON leaves them as they are) escaped, so a name holding one reads back."""
    return json.dumps(value, ensure_ascii=False, default=str).translate(_YAML_BREAKS)


def _memory_properties(entity: Entity) -> dict[str, Any]:
    return {
        "name": entity.name,
        "entityType": entity.entity_type,
        "aliases": list(entity.aliases),
        "created": entity.created,
        "updated": entity.updated,
    }


def _plain(value: Any, kind: type) -> bool:
    """Whether a memory property holds the type the entity keeps it in (aliases: a list of
    strings, or one string)."""
    if kind is list:
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    return isinstance(value, str)


def render(entity: Entity, over: str | None = None) -> str:
    """The note's text; `parse(render(e))` gives `e` back, and lines read from a note are
    written back as they were. `over`, the note's text the entity was read from: each line left
    as it was keeps its own line end, and a new line ends as most of the note's do, so a note
    mixing CRLF, LF and CR keeps its mix (`line_ends.keeping`, as the note-edit tools write);
    without it the lines end with `entity.newline`. The frontmatter (its `updated` is new at each
    write) and the body are matched apart, so a change in each never makes one long changed run."""
    props: dict[str, Any] = {**_memory_properties(entity), **entity.other_properties}
    for key, (raw, held) in entity.given.items():
        if props[key] == held:  # unchanged: as written, not as the entity's string of it
            props[key] = raw
    kept = entity.front_read and kept_front(*entity.front_read, _memory_properties(entity), _yaml_json)
    front = kept or "---\n" + "".join(f"{k}: {_yaml_json(v)}\n" for k, v in props.items()) + "---\n"
    if entity.lines is None:  # a new entity's note
        out = [f"# {one_line(entity.name)}", "", OBS_HEADING, *(obs.render() for obs in entity.observations), ""]
        body = "\n".join([*out, REL_HEADING, *(rel.render() for rel in entity.relations)]) + "\n"
    else:
        body = "\n".join(lines_of(entity.lines, entity.observations, entity.relations))
    if over is None or "\r" not in over:
        return line_ends.from_lf(front + body, entity.newline if over is None else "\n")
    cut = split(line_ends.view(over)).body_start
    fronted = line_ends.keeping(lambda lines: front + lines[cut:])(over)
    return line_ends.keeping(lambda lines: front + body)(fronted)


def inbox_key(inbox: str) -> str:
    """The capture inbox's note path (`[memory] inbox`, '.md' optional) in the case-folded form
    entity note paths are compared with ('' for none): the inbox is never an entity."""
    rel = inbox.strip().strip("/")
    return with_md(rel).casefold() if rel else ""
