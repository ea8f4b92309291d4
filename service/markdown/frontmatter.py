"""Frontmatter: find the YAML block at the top of a note and read it as plain data.

Reading never changes text. Invalid YAML is reported (`error`) and the body is still
available; round-trip editing lives in `service.markdown.yaml_edit`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import yaml

_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


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
    m = _OPEN.match(text)
    if not m:
        return Fences(None, 0, 0)
    close = _CLOSE.search(text, m.end())
    if close is None:
        return Fences(None, 0, 0)
    end = close.end()
    if text.startswith("\r\n", end) or text.startswith("\n", end):
        end += 2 if text.startswith("\r\n", end) else 1
    return Fences(text[m.end() : close.start()], end, text.count("\n", 0, end))


def split(text: str) -> Frontmatter:
    found = fences(text)
    if found.raw is None:
        return Frontmatter(None, {}, None, 0, 0)
    data, error = parse_yaml(found.raw)
    return Frontmatter(found.raw, data, error, found.body_start, found.body_line)


class _Loader(yaml.CSafeLoader):  # type: ignore[misc,name-defined,unused-ignore]
    """libyaml's fast safe loader, with YAML 1.2 booleans: only true/false are booleans, as in
    Obsidian (YAML 1.1 would read `yes`, `no`, `on`, `off` as booleans)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


# An unquoted template placeholder as a whole value (`created: {{date}}`, `- {{title}}`): YAML
# reads it as a nested flow mapping and fails, but Obsidian template folders are full of them.
_PLACEHOLDER = re.compile(
    r"^(?P<lead>[^\S\n]*(?:-[^\S\n]+|[^\s:#][^:\n]*:[^\S\n]+))(?P<value>\{\{[^\n]*\}\})[^\S\n]*$", re.M
)


def parse_yaml(raw: str) -> tuple[dict[str, Any], str | None]:
    """Read frontmatter YAML as plain data (reading only; edits go through ruamel round-trip).

    Frontmatter that is invalid only because of unquoted `{{placeholder}}` values (templates)
    is read with those values as strings; the text itself is never changed."""
    data, error = _parse(raw)
    if error is not None and "{{" in raw:
        quoted = _PLACEHOLDER.sub(lambda m: m["lead"] + "'" + m["value"].replace("'", "''") + "'", raw)
        if quoted != raw:
            retry, retry_error = _parse(quoted)
            if retry_error is None:
                return retry, None
    return data, error


def _parse(raw: str) -> tuple[dict[str, Any], str | None]:
    if not raw.strip():
        return {}, None
    try:
        loaded = yaml.load(raw, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        return {}, first
    except Exception as exc:  # noqa: BLE001 - odd input can raise assorted errors
        return {}, f"invalid YAML: {type(exc).__name__}"
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, "frontmatter is not a mapping"
    return {str(k): to_plain(v) for k, v in loaded.items()}, None


_SCALARS = (str, int, float, bool, type(None))


def to_plain(value: Any) -> Any:
    """YAML values as JSON-able data (dates become ISO strings)."""
    if type(value) in _SCALARS:  # most values: checked first, exactly (bool is not an int here)
        return value
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_plain(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
