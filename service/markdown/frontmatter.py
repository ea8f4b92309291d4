"""Frontmatter: find the YAML block at the top of a note and read it as plain data.

Reading never changes text. Invalid YAML is reported (`error`) and the body is still
available; round-trip editing lives in `service.markdown.yaml_edit`. The common simple form
(`key: value` lines, tag lists) is read by `service.markdown.yaml_fast`, which builds exactly
what the library builds or declines; everything else goes through libyaml.

Bounded: YAML aliases (`*a`) and merge keys (`<<: *a`) let half a kilobyte stand for billions
of values. Before anything is built, the composed node graph is measured as it would expand
(each use of an alias counted again): more values than `[limits] max_frontmatter_values`, more
text than the block itself plus `max_value_bytes`, nesting deeper than `max_depth`, or an alias
inside itself is refused with an `error` starting with `EXPANSION_ERROR` and no properties.
`to_plain` holds the same bound for values built elsewhere (ruamel round-trip values) and
raises `FrontmatterTooLarge`.

The limits are the process's `[limits]` (`service.budget.configured`) unless a caller passes its
own, or a process without the settings package (a parse worker, `service.indexer.parse_worker`)
set them with `use_limits`: this module imports neither, so the worker stays small.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Protocol

import yaml

from service.markdown import yaml_fast
from service.markdown.line_ends import lf

EXPANSION_ERROR = "frontmatter expands past the server's limits"

_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


class YamlLimits(Protocol):
    """The `[limits]` a note's YAML is read within (`LimitsSettings` has them)."""

    @property
    def max_frontmatter_values(self) -> int: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def max_value_bytes(self) -> int: ...


_limits: YamlLimits | None = None  # set by `use_limits`; otherwise the process's `[limits]`


def use_limits(limits: YamlLimits | None) -> YamlLimits | None:
    """Read every note within `limits` from now on (a parse worker: the server's `[limits]`;
    None: the process's own again); returns the limits used before, to set back."""
    global _limits
    before, _limits = _limits, limits
    return before


def configured() -> YamlLimits:
    """The limits a reading without its own uses."""
    if _limits is not None:
        return _limits
    # Imported here, not at the top: `service.budget` imports the settings package (pydantic,
    # ~25 MB), which a parse worker never needs.
    from service.budget import configured as process_limits

    return process_limits()


@dataclass(frozen=True, slots=True)
class Frontmatter:
    raw: str | None  # the YAML text between the fences, None when the note has none
    data: dict[str, Any]  # parsed properties ({} when absent or invalid)
    error: str | None  # YAML error message when the block is invalid
    body_start: int  # character offset where the body begins
    body_line: int  # 0-based line number where the body begins


@dataclass(frozen=True, slots=True)
class Fences:
    """Where the frontmatter block is, without reading its YAML."""

    raw: str | None  # the text between the fences, None when the note has none
    body_start: int  # character offset where the body begins
    body_line: int  # 0-based line number where the body begins


def fences(text: str) -> Fences:
    """The frontmatter block's position only: for callers that need where the body starts
    (link and tag scanners, section edits), not the properties — parsing YAML costs more than
    the rest of a note's scan."""
    if not text.startswith(("---", "\ufeff---")):
        return Fences(None, 0, 0)
    return _in(lf(text), text)  # lines ending in a CR alone (classic Mac OS) are lines too


def _in(view: str, text: str) -> Fences:
    """The block found in `view` (the note with LF line ends, as long as `text`), cut from `text`."""
    m = _OPEN.match(view)
    if not m:
        return Fences(None, 0, 0)
    close = _CLOSE.search(view, m.end())
    if close is None:
        return Fences(None, 0, 0)
    end = close.end()
    if view.startswith("\r\n", end) or view.startswith("\n", end):
        end += 2 if view.startswith("\r\n", end) else 1
    return Fences(text[m.end() : close.start()], end, view.count("\n", 0, end))


def split(text: str, limits: YamlLimits | None = None) -> Frontmatter:
    """The frontmatter block and its properties, read within `limits` (default: the process's)."""
    found = fences(text)
    if found.raw is None:
        return Frontmatter(None, {}, None, 0, 0)
    data, error = parse_yaml(lf(found.raw), limits)
    return Frontmatter(found.raw, data, error, found.body_start, found.body_line)


class _Loader(yaml.CSafeLoader):  # type: ignore[misc,name-defined,unused-ignore]
    """libyaml's fast safe loader, read as Obsidian reads properties (YAML 1.2): only true/false
    are booleans (YAML 1.1 would read `yes`, `no`, `on`, `off` as booleans); `10:30` is text, not
    the base-60 number 630 YAML 1.1 makes of it; a date that does not exist (`2023-02-29`) is
    text, where the library raises and every other property of the note was lost with it."""


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
# Numbers as YAML 1.2 (Obsidian, and ruamel behind get_properties) reads them: `010` is ten and
# `08` eight (YAML 1.1: octal 8, and the text '08'), `0o17` fifteen, `1e3` a float (1.1: text);
# never a value with ':' (1.1's base 60: `10:30` was 630). Binary and '_' kept, as ruamel has them.
_NUMBER_FORMS = {
    _INT: re.compile(
        r"^(?:[-+]?0b_*[0-1][0-1_]*|[-+]?0o_*[0-7][0-7_]*|[-+]?0x_*[0-9a-fA-F][0-9a-fA-F_]*|[-+]?[0-9][0-9_]*)$"
    ),
    _FLOAT: re.compile(
        r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+|[-+]?[0-9][0-9_]*\.[0-9_]*"
        r"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
}


def _no_base_60(tag: str, regex: re.Pattern[str]) -> tuple[str, re.Pattern[str]]:
    """The int and float resolvers of YAML 1.2 (`_NUMBER_FORMS`); the others as they are."""
    return (tag, _NUMBER_FORMS[tag]) if tag in _NUMBER_FORMS else (tag, regex)


def _int(loader: Any, node: yaml.ScalarNode) -> int | str:
    """An int as YAML 1.2 reads it: a leading zero is no octal (`010` is ten); `0o`, `0x`, `0b`.
    One Python will not convert (past 4,300 digits, `!!int x`) is its text, not a failed block."""
    text = str(loader.construct_scalar(node))
    digits = text.replace("_", "").lstrip("+-")
    base = {"0b": 2, "0o": 8, "0x": 16}.get(digits[:2].lower(), 10)
    try:
        return (-1 if text[:1] == "-" else 1) * int(digits[2:] if base != 10 else digits, base)
    except ValueError:
        return text


def _timestamp(loader: Any, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, AttributeError):  # 2023-02-29, month 13, `!!timestamp x`: the text
        return loader.construct_scalar(node)


_Loader.yaml_implicit_resolvers = {
    key: [_no_base_60(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)
_Loader.add_constructor(_INT, _int)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


# An unquoted template placeholder as a whole value (`created: {{date}}`, `- {{title}}`): YAML
# reads it as a nested flow mapping and fails, but Obsidian template folders are full of them.
PLACEHOLDER = re.compile(
    r"^(?P<lead>[^\S\n]*(?:-[^\S\n]+|[^\s:#][^:\n]*:[^\S\n]+))(?P<value>\{\{[^\n]*\}\})[^\S\n]*$", re.M
)


def parse_yaml(raw: str, limits: YamlLimits | None = None) -> tuple[dict[str, Any], str | None]:
    """Read frontmatter YAML as plain data (reading only; edits go through ruamel round-trip).

    Frontmatter that is invalid only because of unquoted `{{placeholder}}` values (templates)
    is read with those values as strings; the text itself is never changed."""
    limits = limits or configured()
    data, error = _parse(raw, limits)
    if error is not None and "{{" in raw and not error.startswith(EXPANSION_ERROR):
        quoted = PLACEHOLDER.sub(lambda m: m["lead"] + "'" + m["value"].replace("'", "''") + "'", raw)
        if quoted != raw:
            retry, retry_error = _parse(quoted, limits)
            if retry_error is None:
                return retry, None
    return data, error


def _parse(raw: str, limits: YamlLimits) -> tuple[dict[str, Any], str | None]:
    if not raw.strip():
        return {}, None
    loaded = yaml_fast.read(raw)  # the common simple form, without the library's constructor
    if loaded is None:
        loaded, error = _load(raw, limits)
        if error is not None:
            return {}, error
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, "frontmatter is not a mapping"
    try:
        return _Plain(limits, len(raw)).mapping(loaded), None
    except FrontmatterTooLarge as exc:
        return {}, str(exc)


def _load(raw: str, limits: YamlLimits) -> tuple[Any, str | None]:
    """What the YAML library builds from `raw` (aliases measured first), or why it cannot."""
    loader = _Loader(raw)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        # Only an alias (`*name`) makes the values outgrow the text; `_Plain` bounds the rest.
        refused = expansion_problem(node, len(raw), limits) if "*" in raw else None
        if refused is not None:
            return None, refused
        return loader.construct_document(node), None
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        return None, first
    except Exception as exc:  # noqa: BLE001 - odd input can raise assorted errors
        return None, f"invalid YAML: {type(exc).__name__}"
    finally:
        loader.dispose()


def write_refusal(front: Frontmatter) -> str | None:
    """Why a writer that renders the note from what it read refuses it (None: it does not): the
    block does not parse, or names a key twice. The one test for the memory's writes and for the
    jobs that propose them (`service.memory.model.Entity.fm_error`)."""
    return front.error or (duplicate_key(front.raw) if front.raw else None)


def duplicate_key(raw: str) -> str | None:
    """Why the block names a key twice in one mapping (None: it does not, or is not YAML the
    library reads). Reading lets the later one win; a rewrite from what was read would drop the
    first, so a writer refuses it (Obsidian and the round-trip loader reject it too).

    Keys are compared as the reading builds them, not as spelled: `1` / `0x1` / `1.0`, `null` / `~`,
    `true` / `True` / `1` are one key to the loader (equal values), and `1` / `"1"` one property once
    `split` names it (`str` of the key)."""
    loader = _Loader(raw)
    try:
        node = loader.get_single_node()
        return _duplicate_in(loader, node)
    except Exception:  # noqa: BLE001 - not readable as written (a template's placeholders): others answer
        return None
    finally:
        loader.dispose()


def _duplicate_in(loader: Any, node: yaml.Node | None) -> str | None:
    pending, visited = [node], set()
    while pending:  # each node once: an alias is the node it names, never walked again
        node = pending.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            built: set[Any] = set()  # the keys as the loader builds them: its dict keeps one of equal keys
            named: set[str] = set()  # and as `split` names them
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    made = loader.construct_object(key)
                    if made in built or str(made) in named:
                        return f"found duplicate key {key.value!r} (a property named twice)"
                    built.add(made)
                    named.add(str(made))
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return None


class FrontmatterTooLarge(ValueError):
    """A frontmatter value expands past `[limits]` (aliases, nesting)."""


def expansion_problem(node: yaml.Node, raw_chars: int, limits: YamlLimits | None = None) -> str | None:
    """Why the composed YAML `node` may not be built (None: it may), measured without building
    it and without recursion: each node's expanded value count, text and depth, once per node."""
    limits = limits or configured()
    max_values, max_depth = limits.max_frontmatter_values, limits.max_depth
    max_chars = raw_chars + limits.max_value_bytes
    done: dict[int, tuple[int, int, int]] = {}  # id(node) -> (values, chars, depth)
    open_: set[int] = set()
    stack: list[yaml.Node] = [node]
    while stack:
        n = stack[-1]
        key = id(n)
        if key in done:
            stack.pop()
            continue
        if isinstance(n, yaml.ScalarNode):
            done[key] = (1, len(n.value), 1)
            stack.pop()
            continue
        children = _children(n)
        if key not in open_:
            open_.add(key)
            for child in children:
                if id(child) in open_:
                    return f"{EXPANSION_ERROR}: an alias refers to a value inside itself"
                if id(child) not in done:
                    stack.append(child)
            continue
        stack.pop()
        open_.discard(key)
        values = 1 + sum(done[id(c)][0] for c in children)
        chars = sum(done[id(c)][1] for c in children)
        depth = 1 + max((done[id(c)][2] for c in children), default=0)
        if values > max_values:
            return f"{EXPANSION_ERROR}: more than {max_values} values once its aliases are expanded"
        if chars > max_chars:
            return f"{EXPANSION_ERROR}: more than {max_chars} characters once its aliases are expanded"
        if depth > max_depth:
            return f"{EXPANSION_ERROR}: nested more than {max_depth} levels deep"
        done[key] = (values, chars, depth)
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


_SCALARS = (str, int, float, bool, type(None))


class _Plain:
    """`to_plain` with a count: values, text and depth stay within `[limits]`."""

    __slots__ = ("values", "chars", "max_values", "max_chars", "max_depth")

    def __init__(self, limits: YamlLimits, raw_chars: int = 0) -> None:
        self.values = 0
        self.chars = 0
        self.max_values = limits.max_frontmatter_values
        self.max_chars = raw_chars + limits.max_value_bytes
        self.max_depth = limits.max_depth

    def mapping(self, value: dict[Any, Any]) -> dict[str, Any]:
        self._count(len(value))
        return {str(k): self.plain(v, 1) for k, v in value.items()}

    def _count(self, n: int) -> None:
        self.values += n
        if self.values > self.max_values:
            raise FrontmatterTooLarge(f"{EXPANSION_ERROR}: more than {self.max_values} values")

    def plain(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind in _SCALARS:  # most values: checked first, exactly (bool is not an int here)
            if kind is str:
                self.chars += len(value)
                if self.chars > self.max_chars:
                    raise FrontmatterTooLarge(f"{EXPANSION_ERROR}: more than {self.max_chars} characters")
            return value
        if depth >= self.max_depth:
            raise FrontmatterTooLarge(f"{EXPANSION_ERROR}: nested more than {self.max_depth} levels deep")
        if isinstance(value, dict):
            self._count(len(value))
            return {str(k): self.plain(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple, set)):
            self._count(len(value))
            return [self.plain(v, depth + 1) for v in value]
        if isinstance(value, (dt.datetime, dt.date, dt.time)):
            return value.isoformat()
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        return str(value)


def to_plain(value: Any, limits: YamlLimits | None = None) -> Any:
    """YAML values as JSON-able data (dates become ISO strings); `FrontmatterTooLarge` past
    `[limits]` (an aliased value counts each time it is used)."""
    if type(value) in _SCALARS:
        return value
    return _Plain(limits or configured()).plain(value, 0)
