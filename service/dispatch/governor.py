"""Response governor: serialize the result once and keep every result within the byte budget.

The limit is the tool's own `max_bytes` when declared, else `governor.max_response_bytes`.

- A read (or a dry run) over the limit becomes `overflow` with the size, the limit and a way
  forward: nothing happened, so the caller simply asks again for less; the hint names the
  arguments of that tool that ask for less. When the tool pages (`limit`), details carry
  `suggested_limit`, a page size that should fit.
- A *completed* change over the limit is never turned into an error after the fact (the caller
  would retry a change that already happened). Its report is trimmed instead: the longest lists
  are cut (then over-long strings shortened) until it fits, `truncated` is set when the result
  has that field, and the text says so. If it still does not fit (a free-form map such as the
  20,000 properties `set_properties` echoes), the biggest maps are halved, each cut kept only
  when the tool's result model still accepts it: fields the model names (path, etag, counts)
  never go. The result stays a valid instance of its schema (lists stay lists). Tools that
  change many files also cap their own reports (`limit`), so this is a backstop.
  `notes["overflow_bytes"]` records the original size either way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_json

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Overflow, answers_whole
from service.settings import GovernorSettings

_SHORT = 80  # strings are cut to this many characters when cutting lists was not enough


def _size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON (pydantic's encoder: ~6x `json.dumps`)."""
    return len(to_json(value))


def _lists(value: Any, out: list[list[Any]]) -> list[list[Any]]:
    if isinstance(value, list):
        if value:
            out.append(value)
        for item in value:
            _lists(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _lists(item, out)
    return out


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _SHORT:
        return value[:_SHORT] + "…"
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _maps(value: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every non-empty dict under `value` (not `value` itself)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        if isinstance(item, dict) and item:
            out.append(item)
        _maps(item, out)
    return out


def _dominant(data: dict[str, Any], skip: set[int]) -> dict[str, Any] | None:
    """The map to cut: from the top, step into the biggest map below while it holds most of the
    bytes (a facade's `result`, then its `properties`), so the fields around it stay."""
    node: dict[str, Any] | None = None
    current = data
    while True:
        below = [m for m in _maps(current, []) if id(m) not in skip]
        if not below:
            return node
        biggest = max(below, key=_size)
        if node is not None and _size(biggest) * 2 < _size(node):
            return node
        node = current = biggest


def _cut_maps(data: dict[str, Any], budget: int, valid: Callable[[dict[str, Any]], bool]) -> None:
    """Halve the biggest maps under `data` until it fits `budget`; a cut `valid` refuses (a map whose
    keys the schema names) is undone and that map left alone."""
    kept: set[int] = set()
    while _size(data) > budget:
        biggest = _dominant(data, kept)
        if biggest is None:
            return
        keys = list(biggest)
        removed = {k: biggest.pop(k) for k in keys[len(keys) // 2 :]}
        if not valid(data):
            biggest.update(removed)  # a key order change cannot matter to a map the model validates
            kept.add(id(biggest))


def trim(
    structured: dict[str, Any], budget: int, valid: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any]:
    """A copy of `structured` with its biggest lists halved (then long strings cut, then, when
    `valid` says which cuts the schema allows, its biggest maps halved) to fit `budget`."""
    data = copy.deepcopy(structured)
    if isinstance(data.get("truncated"), bool):
        data["truncated"] = True
    while _size(data) > budget:
        lists = _lists(data, [])
        if not lists:
            break
        biggest = max(lists, key=_size)
        del biggest[len(biggest) // 2 :]  # keep the first half (a one-item list is emptied)
    if _size(data) > budget:
        data = _shorten(data)
    if valid is not None and _size(data) > budget:
        _cut_maps(data, budget, valid)
    return data


# Arguments that make a tool answer less, and how the hint names them (in this order).
_NARROWING = (
    ("include_content", "include_content: false (its metadata only), then read_note by line range"),
    ("paths", "fewer paths"),
    ("heading", "one heading's section"),
    ("start_line", "a line range (start_line/end_line)"),
    ("max_chars", "a smaller max_chars"),
    ("limit", "a smaller limit, following next_cursor"),
)


def _ways_to_less(call: CallContext) -> str:
    """The overflow hint for this tool: the arguments it takes that ask for less, or, for a tool
    that answers whole (read_canvas), the setting that bounds it. A fixed hint named paging and
    line ranges to tools that take neither."""
    fields = call.spec.input_model.model_fields if call.spec is not None else {}
    ways = [text for name, text in _NARROWING if name in fields]
    if ways:
        return f"Ask for less: {', '.join(ways)}."
    return answers_whole(call.tool)


class Governor:
    name = "governor"

    def __init__(self, settings: GovernorSettings) -> None:
        self.max_bytes = settings.max_response_bytes

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        result = await next(call)
        if result.is_error or result.input_required is not None:
            return result
        body = to_json(result.structured)
        if result.structured is not None:
            result.structured_json = body  # the answer's own bytes, for a transport that writes it (stdio)
        size = len(body) + len(result.text.encode("utf-8"))
        size += sum(len(str(c)) for c in result.extra_content)
        result.size = size
        limit = self.max_bytes
        if call.spec is not None and call.spec.max_bytes is not None:
            limit = min(limit, call.spec.max_bytes)
        if size <= limit:
            return result
        call.notes["overflow_bytes"] = size
        if result.applied:
            return self._trimmed(call, result, size, limit)
        details: dict[str, Any] = {"bytes": size, "limit": limit, "tool": call.tool}
        hint = _ways_to_less(call)
        page = getattr(call.args, "limit", None)
        if isinstance(page, int) and not isinstance(page, bool) and page > 1:
            suggested = max(1, min(page - 1, int(page * limit / size * 0.8)))
            details["suggested_limit"] = suggested
            hint = f"Retry with limit={suggested} (or less) and follow next_cursor for the rest."
        raise Overflow(f"result of {size} bytes exceeds the {limit}-byte limit", details=details, hint=hint)

    def _trimmed(self, call: CallContext, result: ToolResult, size: int, limit: int) -> ToolResult:
        text = (
            f"Done: {call.tool} completed. Its full report ({size} bytes) exceeded the {limit}-byte response "
            "limit, so lists and maps in it were shortened; the counts in it are complete."
        )
        budget = max(limit - len(text.encode("utf-8")), 0)
        valid = _validator(call)
        structured = trim(result.structured, budget, valid) if result.structured is not None else None
        call.notes["trimmed"] = True
        out = ToolResult(structured=structured, text=text, applied=True)
        out.size = _size(structured) + len(text.encode("utf-8"))
        return out


def _validator(call: CallContext) -> Callable[[dict[str, Any]], bool] | None:
    """Whether a trimmed answer is still an instance of the tool's result model (None: no model to ask)."""
    if call.spec is None:
        return None
    model = call.spec.output_model

    def valid(data: dict[str, Any]) -> bool:
        try:
            model.model_validate(data)
        except ValidationError:
            return False
        return True

    return valid
