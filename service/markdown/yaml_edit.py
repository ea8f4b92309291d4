"""Round-trip frontmatter edits: change some properties, keep everything else as the user wrote it.

`edit_frontmatter(text, change)` loads the note's YAML with ruamel's round-trip loader,
lets `change` mutate the mapping, and writes back only the frontmatter block; the body is
never touched. Key order, comments, quoting styles, flow/block list styles and the untouched
keys survive; the list indentation the note already uses is detected and reused; line endings
(LF or CRLF) are kept. A note without frontmatter gets one. A written string (value or key)
holding U+0085 is double-quoted with the character escaped (`yaml_text`), so it reads back as
written. New values are written as Obsidian writes properties: `  - item`, quotes only where
needed and double, a text of several lines as a literal block (`|-`; `literal_block` says when).
Invalid YAML raises `ValidationFailed` (details.reason = "invalid_frontmatter") before anything is written.

Bounded: ruamel's round-trip loader is pure Python (~0.5 s for 10,000 keys, ~50 s for a
1.3 MB block of 100,000, on a loaded machine). A block longer than `MAX_ROUND_TRIP_CHARS` is
never handed to it: an edit is `compute_budget_exceeded` (details.limit `frontmatter_size`)
before anything is written, and `read` gives its properties as the index reads them
(`service.markdown.frontmatter`: libyaml, bounded by `[limits]`).

Tag helpers (`tag_list`, `set_tags`) read and write the `tags` property whether the note
keeps it as a list, a comma/space separated string or the legacy `tag` key; a mapping (or a
list holding one) is `ValidationFailed` (details.reason `tags_not_a_list`), never rewritten.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.errors import ComputeBudgetExceeded, ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import line_ends
from service.markdown.yaml_as_written import (
    FRACTION_PAST_MICROSECONDS,
    DateAsWritten,
    FloatAsWritten,
    IntAsWritten,
    TimeAsWritten,
    float_as_written,
    timestamp_as_written,
)

# ruamel is imported where it is used: loading it costs ~12 ms that a server start does not need.
if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

MAX_ROUND_TRIP_CHARS = 65_536  # frontmatter characters the round-trip loader is given
OBSIDIAN_LIST_INDENT = 2  # Obsidian writes a list property's items as `  - item`
_TOO_DEEP = ("while increasing flow level", "while increasing block level")  # libyaml's nesting limit
_SEQ_INDENT = re.compile(r"^( *)- ", re.MULTILINE)
_KEY_LINE = re.compile(r"^\S[^:\n]*:[ \t]*$", re.MULTILINE)


_ruamel_classes: tuple[type, type, type] | None = None


def _classes() -> tuple[type, type, type]:
    """ruamel's round-trip constructor, representer and emitter, taught `DateAsWritten` and
    Obsidian's quotes (made once)."""
    global _ruamel_classes
    if _ruamel_classes is None:
        from ruamel.yaml.constructor import RoundTripConstructor
        from ruamel.yaml.emitter import RoundTripEmitter
        from ruamel.yaml.representer import RoundTripRepresenter

        class Constructor(RoundTripConstructor):
            def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
                try:
                    value = super().construct_yaml_timestamp(node, values)
                except ValueError:
                    return DateAsWritten(node.value)
                if isinstance(value, dt.datetime) and FRACTION_PAST_MICROSECONDS.search(str(node.value)):
                    # nanoseconds ('…T10:00:00.123456789Z'): Python keeps microseconds, and an edit of
                    # another property wrote '.123457Z'; the value reads as before, its text is kept
                    held = timestamp_as_written(value)
                    held.text = str(node.value)
                    return held
                return value

            def construct_yaml_float(self, node: Any) -> Any:
                value = super().construct_yaml_float(node)
                if isinstance(value, float) and float_as_written(str(node.value), value):
                    held = FloatAsWritten(value)
                    held.text = str(node.value)
                    return held
                return value

            def construct_yaml_int(self, node: Any) -> Any:
                try:
                    return super().construct_yaml_int(node)
                except ValueError:
                    return IntAsWritten(node.value)

        class Representer(RoundTripRepresenter):
            pass

        class Emitter(RoundTripEmitter):
            def choose_scalar_style(self) -> Any:
                # A text of several lines given no style is a literal block (`|-`, `|`, `|+`), as
                # Obsidian writes one (`literal_block`). A scalar that needs quotes and was given no
                # style (a new value, or one written plain that no longer can be) is double-quoted, as
                # Obsidian writes properties (`"[[Link]]"`, `"145"`, `""`); single quotes when the text
                # holds a '"' and no "'" (fewer escapes), as Obsidian's writer does too. A quote style
                # read from the note is kept, a block's only while the new text can be one: a CR, a
                # control character or a last line of blanks written raw in a kept `|` broke the
                # frontmatter (set_properties of 'a\rb' over a block), and a single line is no block.
                if self.event.style in ("|", ">") and not literal_block(self.event.value):
                    self.event.style = None
                if (
                    not self.event.style
                    and not self.flow_level
                    and not self.simple_key_context
                    and self.event.tag in (None, "tag:yaml.org,2002:str")
                    and literal_block(self.event.value)
                ):
                    return "|"
                style = super().choose_scalar_style()
                if style == "'" and not self.event.style and ('"' not in self.event.value or "'" in self.event.value):
                    return '"'
                return style

            def determine_block_hints(self, text: Any) -> Any:
                # Obsidian's writer puts the chomping indicator first: '|-2', '|+2' (same meaning). A
                # first line that starts with a tab gets the indentation too: libyaml (the index's
                # reader) refuses a tab where it looks for the block's indentation.
                hints, indent, indicator = super().determine_block_hints(text)
                if text[:1] == "\t":
                    hints, indent = "2" + hints, 2
                if hints[:1].isdigit() and indicator:
                    hints = indicator + hints[: -len(indicator)]
                return hints, indent, indicator

            def write_literal(self, text: Any, comment: Any = None) -> None:
                # A kept block (`|+`) at the end made ruamel close the document with '...': the
                # frontmatter's closing '---' ends it, as in what Obsidian writes.
                super().write_literal(text, comment)
                self.open_ended = False

        Constructor.add_constructor("tag:yaml.org,2002:timestamp", Constructor.construct_yaml_timestamp)
        Constructor.add_constructor("tag:yaml.org,2002:int", Constructor.construct_yaml_int)
        Constructor.add_constructor("tag:yaml.org,2002:float", Constructor.construct_yaml_float)
        # Tagged as the timestamp it looks like, so it is written plain (it resolves to that tag).
        Representer.add_representer(
            DateAsWritten, lambda rep, data: rep.represent_scalar("tag:yaml.org,2002:timestamp", str(data))
        )
        Representer.add_representer(
            IntAsWritten, lambda rep, data: rep.represent_scalar("tag:yaml.org,2002:int", str(data))
        )
        for kind, tag in ((FloatAsWritten, "float"), (TimeAsWritten, "timestamp")):
            Representer.add_representer(
                kind, lambda rep, data, tag=tag: rep.represent_scalar(f"tag:yaml.org,2002:{tag}", data.text)
            )
        _ruamel_classes = (Constructor, Representer, Emitter)
    return _ruamel_classes


# What makes Obsidian's YAML writer (eemeli/yaml, no line folding) write a text in double quotes
# rather than as a block: a control character (a CR among them: 'a\r\nb'), a last line of blanks
# only, a text of blanks and breaks only. U+0085, U+2028 and U+2029 are line breaks to YAML 1.1 (the
# index's reader): never raw in a block, so they are double-quoted (escaped) too.
_NOT_IN_BLOCK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|\n[\t ]+\Z|\A\s*\Z")


def literal_block(text: Any) -> bool:
    """Whether Obsidian writes `text` (a property's value, a list item) as a literal block: a text
    of several lines that holds nothing `_NOT_IN_BLOCK` names. Its lines are written as they are
    ('---', '# x', 'k: v', tabs, trailing blanks of a line are content there), indented."""
    return isinstance(text, str) and "\n" in text and _NOT_IN_BLOCK.search(text) is None


def _yaml(raw: str) -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.Constructor, yaml.Representer, yaml.Emitter = _classes()
    yaml.preserve_quotes = True
    yaml.width = 4096
    offset = OBSIDIAN_LIST_INDENT  # a frontmatter with no list yet gets Obsidian's `  - item`
    m = _SEQ_INDENT.search(raw)
    if m and _KEY_LINE.search(raw, 0, m.start()):
        offset = len(m.group(1))
    yaml.indent(mapping=2, sequence=offset + 2, offset=offset)
    return yaml


def invalid_frontmatter(path: str, reason: str) -> ValidationFailed:
    return ValidationFailed(
        f"the frontmatter of {path!r} is not valid YAML: {reason}",
        details={"path": path, "reason": "invalid_frontmatter", "yaml_error": reason},
        hint="Fix the YAML between the '---' lines (read_note part=frontmatter) and retry.",
    )


def _too_large(path: str, chars: int) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        f"the frontmatter of {path!r} is {chars:,} characters: properties are edited in frontmatter of at most "
        f"{MAX_ROUND_TRIP_CHARS:,}",
        details={"path": path, "limit": "frontmatter_size", "chars": chars, "max": MAX_ROUND_TRIP_CHARS},
        hint="Edit the note's text instead (edit_note / write_note), or move the bulk of the data into the body.",
    )


def load(text: str, path: str) -> CommentedMap:
    """The note's frontmatter as a round-trip mapping ({} when it has none); a block longer than
    `MAX_ROUND_TRIP_CHARS` is `ComputeBudgetExceeded`, before any YAML is read. A template's
    placeholder value (`created: {{date}}`) is its text, as the index reads it."""
    data, held = _loaded(text, path)
    if held:
        _put_back(data, held)
    return data


def _held(raw: str) -> tuple[str, dict[str, str]]:
    """`raw` with each unquoted template placeholder that is a whole value (`created: {{date}}`,
    `- {{title}}`: `fm.PLACEHOLDER`) replaced by a plain token, and the placeholders by token.
    ruamel reads `{{date}}` as a mapping keyed by a mapping, and an edit of any other property
    wrote that line back as `{{date: null}: null}`, which no YAML reader takes; a token is written
    back plain, where it stood, and `edit_frontmatter` puts the placeholder's text back there."""
    if "{{" not in raw:
        return raw, {}
    nonce = secrets.token_hex(6)
    while nonce in raw:
        nonce = secrets.token_hex(6)
    held: dict[str, str] = {}

    def hold(m: re.Match[str]) -> str:
        token = f"vgheld{nonce}n{len(held)}"
        held[token] = m["value"]
        return m["lead"] + token

    return fm.PLACEHOLDER.sub(hold, raw), held


def _put_back(data: Any, held: dict[str, str]) -> None:
    """Each token of `_held` among the values of `data` (a round-trip mapping) is its placeholder's text."""
    stack = [data]
    while stack:
        node = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else ()
        for key in keys:
            value = node[key]
            if isinstance(value, str) and value in held:
                node[key] = held[value]
            elif isinstance(value, dict | list):
                stack.append(value)


def _loaded(text: str, path: str) -> tuple[CommentedMap, dict[str, str]]:
    """`load`'s mapping with the template placeholders still held as tokens (`_held`), and them."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    text = line_ends.lf(text)  # lines ending in a CR alone (classic Mac OS) are lines too
    found = fm.fences(text)
    if found.raw is not None and len(found.raw) > MAX_ROUND_TRIP_CHARS:
        raise _too_large(path, len(found.raw))
    front = fm.split(text)
    if front.raw is None or not front.raw.strip():
        return CommentedMap(), {}
    if front.error is not None and front.error.startswith(fm.EXPANSION_ERROR):
        raise invalid_frontmatter(path, front.error)  # an alias bomb: never handed to the round-trip loader
    if front.error is not None and front.error.startswith(_TOO_DEEP):
        # Nested past libyaml's 1,000 levels (`a: [[[[…`): ruamel recursed to Python's limit first,
        # ~4 s of CPU for a 10 KB block on every read or edit of the note, then failed all the same.
        raise invalid_frontmatter(path, f"nested deeper than YAML is read ({front.error})")
    raw, held = _held(front.raw)
    try:
        data = _yaml(raw).load(raw)
    except YAMLError as exc:
        raise invalid_frontmatter(path, str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except Exception as exc:  # noqa: BLE001 - ruamel raises assorted errors on odd input
        raise invalid_frontmatter(path, type(exc).__name__) from None
    if data is None:
        return CommentedMap(), held
    if not isinstance(data, CommentedMap):
        raise invalid_frontmatter(path, "frontmatter is not a mapping")
    return data, held


def edit_frontmatter(text: str, path: str, change: Callable[[CommentedMap], None]) -> str:
    """`text` with its frontmatter replaced by `change(mapping)`'s result; the body untouched (a
    note with lines ending in a CR alone is edited on its LF form: `line_ends.keeping`)."""
    if line_ends.lf(text) is not text:
        return line_ends.keeping(lambda view: edit_frontmatter(view, path, change))(text)
    data, held = _loaded(text, path)
    front = fm.fences(text)
    change(data)
    raw = front.raw or ""
    newline = "\r\n" if "\r\n" in (raw or text[:200]) else "\n"
    if len(data) == 0:
        dumped = ""
    else:
        out = io.StringIO()
        _yaml(raw).dump(data, out)
        dumped = out.getvalue()
        for token, placeholder in held.items():  # where the value was kept (or moved): as it was written
            dumped = dumped.replace(token, placeholder)
        if newline == "\r\n":
            dumped = dumped.replace("\r\n", "\n").replace("\n", "\r\n")
    if front.raw is None:
        if not dumped:
            return text
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}---{newline}{dumped}---{newline}{text[len(bom) :]}"
    start = text.index("\n") + 1
    end = start + len(raw)
    return text[:start] + dumped + text[end:]


def read(text: str, path: str) -> tuple[dict[str, Any], str | None]:
    """The note's properties as plain data, and why its frontmatter cannot be read (None when it
    can): as `load` reads them, or as the index does for a block past `MAX_ROUND_TRIP_CHARS`."""
    found = fm.fences(text)
    if found.raw is not None and len(found.raw) > MAX_ROUND_TRIP_CHARS:
        front = fm.split(text)
        return front.data, front.error
    try:
        return plain(dict(load(text, path))), None
    except ValidationFailed as exc:
        return {}, str(exc.details.get("yaml_error", exc.message))
    except fm.FrontmatterTooLarge as exc:
        return {}, str(exc)


def plain(value: Any) -> Any:
    """A ruamel value as plain JSON-able data."""
    return fm.to_plain(value)


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")  # naive: an offset would read back changed
_NEL = "\x85"  # a line break to YAML, written raw by ruamel's plain and quoted styles alike


def yaml_text(text: str) -> str:
    """A string (a value or a key) as ruamel should write it: one holding U+0085 (NEL) double-quoted,
    where the emitter escapes it (`\\N`); in the other styles ruamel writes it raw, and YAML reads a
    raw NEL as a line break and folds it into a space ('a\\x85b' came back as 'a b')."""
    if _NEL not in text:
        return text
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    quoted: str = DoubleQuotedScalarString(text)
    return quoted


def to_yaml_value(value: Any) -> Any:
    """A JSON value as what ruamel should write: lists in block style, nested maps kept, an ISO
    date string ('2024-02-01') as a YAML date, unquoted, so Obsidian (and the index) read a date
    as before the edit, not a text property; a date and time ('2024-02-01T09:30:00') unquoted too,
    as Obsidian writes one (it reads back as the same text)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, str) and _ISO_DATE_TIME.fullmatch(value):
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            return value
        return DateAsWritten(value)  # plain, as Obsidian writes a date & time; it reads back as this text
    if isinstance(value, str):
        return yaml_text(value)
    if isinstance(value, list):
        seq = CommentedSeq(to_yaml_value(v) for v in value)
        return seq
    if isinstance(value, dict):
        cm = CommentedMap()
        for k, v in value.items():
            cm[yaml_text(str(k))] = to_yaml_value(v)
        return cm
    return value


def norm_tag(tag: str) -> str:
    return tag.strip().lstrip("#").strip()


def tag_list(data: CommentedMap) -> tuple[str | None, list[str]]:
    """(key holding the tags, the tags in order) for a frontmatter mapping."""
    for key in ("tags", "tag"):
        if key in data:
            value = data[key]
            if value is None:
                return key, []
            if isinstance(value, str):
                parts = re.split(r"[,\s]+", value)
                return key, [norm_tag(p) for p in parts if norm_tag(p)]
            if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict | list) for v in value)):
                raise ValidationFailed(  # a hand-written mapping is no tag: never rewritten as its repr
                    f"the note's {key!r} property is not a list of tags: it is left as it is",
                    details={"field": key, "reason": "tags_not_a_list"},
                    hint="Edit the property by hand (or with set_properties) into a list of tags first.",
                )
            if isinstance(value, list):
                return key, [norm_tag(str(v)) for v in value if v is not None and norm_tag(str(v))]
            return key, [norm_tag(str(value))]
    return None, []


def set_tags(data: CommentedMap, tags: list[str]) -> None:
    """Write `tags` back where they were, as a list (a list keeps its flow/block style)."""
    from ruamel.yaml.comments import CommentedSeq

    key, _ = tag_list(data)
    key = key or "tags"
    current = data.get(key)
    if not tags:
        if key in data:
            del data[key]
        return
    if isinstance(current, CommentedSeq):
        # Edit in place, item by item, so comments on the surviving items stay attached.
        wanted = {t.lower() for t in tags}
        for index in reversed(range(len(current))):
            if norm_tag(str(current[index])).lower() not in wanted:
                del current[index]
        present = {norm_tag(str(v)).lower() for v in current}
        current.extend(t for t in tags if t.lower() not in present)
        return
    data[key] = CommentedSeq(tags)
