"""Reading the Local REST API plugin's answers safely: JSON bounded in depth and in values, and
the plugin's text without the API key and cut to a length an error can carry.

A plugin's answer is up to `rest_api.MAX_BODY` (64 MiB) and comes from a program vaultgate does
not control (Obsidian, another version of the plugin, or whatever answers on that port): read as
JSON it could hold tens of millions of values (GBs of memory, minutes of the event loop), nest
past the recursion limit, or hold NaN; its text may echo the request's key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from service.json_depth import finite

MAX_DEPTH = 64  # nested arrays/objects an answer may hold (a note's frontmatter included)
MAX_MESSAGE = 500  # characters of a plugin's error message kept in an error
SCRUBBED = b"[api key]"  # what stands for the API key where an answer holds it
MIN_SCRUBBED = 12  # characters of a key below which it is not looked for
# values (commas, arrays, objects) an answer may hold: ~70 MB of Python objects at most, where
# Obsidian's largest real lists (make.md's spaces, the command palette) hold some 100,000
MAX_VALUES = 1_000_000


class TooManyValues(ValueError):
    """An answer that would hold more than `MAX_VALUES` values once read."""


def many_values(content: bytes) -> bool:
    """Whether a JSON text may hold more than `MAX_VALUES` values: each value past the first of an
    array or object follows a ',' (one in a string counts too: an upper bound, three C scans)."""
    return content.count(b",") + content.count(b"[") + content.count(b"{") > MAX_VALUES


def loads(content: bytes) -> Any:
    """A plugin's JSON answer; ValueError for anything else, an answer nested deeper than
    `MAX_DEPTH` included (json.loads raises RecursionError at ~1,000 levels, and a deep value
    that parses fails later, when the tool's answer is serialized), and `TooManyValues` for one
    that may hold more than `MAX_VALUES` values, before it is parsed: 64 MiB of `[{},{},…]` is
    21 million objects, GBs of memory and minutes of the event loop."""
    if many_values(content):
        raise TooManyValues(f"more than {MAX_VALUES} values")
    try:
        value = json.loads(content, parse_float=finite, parse_constant=finite)  # no NaN nor infinity
    except RecursionError:
        raise ValueError("nested too deep") from None
    if content.count(b"[") + content.count(b"{") <= MAX_DEPTH:  # cannot nest deeper: no walk
        return value
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:  # containers only: a large flat answer's scalars are never put on it
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH}")
        children = item.values() if isinstance(item, dict) else item
        stack.extend((v, depth + 1) for v in children if isinstance(v, dict | list))
    return value


def scrubbed(content: bytes, headers: Mapping[str, str]) -> bytes:
    """An answer without the API key it was asked with: a program on the port that echoes the
    request (a proxy's error page, a 400 naming the header) would otherwise put it in an error or
    a result, where the agent could read it and call the plugin around vaultgate's checks. The
    plugin's keys are 64 hex digits; one shorter than `MIN_SCRUBBED` is left (it would be found
    in ordinary text, which it would garble)."""
    key = headers.get("Authorization", "").removeprefix("Bearer ").encode()
    return content.replace(key, SCRUBBED) if len(key) >= MIN_SCRUBBED and key in content else content


def clip(message: str) -> str:
    """A message of the plugin as errors carry it: at most `MAX_MESSAGE` characters (a plugin's
    answer may be 64 MiB, and an error is sent to the agent, whatever its size, and logged)."""
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "…"
