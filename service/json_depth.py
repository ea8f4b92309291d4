"""How deep arrays and objects nest in a parsed JSON value, measured level by level (no recursion:
a value nested past Python's recursion limit is measured too). Standard library only: the stdio
front's framing (`service.protocol.framing`) checks every request with it before anything else
loads, and the readers of Obsidian's JSON files (`service.obsidian.json_depth`) every file."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs the stdio front ~2 ms at start
    from typing import Any


def too_deep(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest in `value` more than `limit` levels (the value itself, when
    it is one, is level 1; one list comprehension per container)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for node in level:
            below += [c for c in (node.values() if type(node) is dict else node) if type(c) is dict or type(c) is list]
        level = below
    return False


def finite(number: str) -> float:
    """A JSON float or constant as `json.loads(parse_float=finite, parse_constant=finite)` reads
    it: `1e400` (infinity to Python and JavaScript), `NaN` and `Infinity` are a ValueError, as no
    answer could carry them as numbers (the wire would get null where a schema says number)."""
    value = float(number)
    if value - value != 0:  # infinity or NaN (`math` is not loaded for this)
        raise ValueError(f"the number {number[:40]} is not finite")
    return value
