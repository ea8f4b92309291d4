"""The terminal layer: run the tool's handler and render its output once (or pass on a nested
call's InputRequiredResult, see `InputNeeded`)."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import PydanticSerializationError

from service.dispatch.context import CallContext, ContextFor, Next, ToolResult
from service.tools.context import InputNeeded


class RunHandler:
    name = "handler"

    def __init__(self, context_for: ContextFor) -> None:
        self.context_for = context_for

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.spec is not None and call.args is not None and call.vault is not None
        ctx = self.context_for(call)
        try:
            output = await call.spec.handler(ctx, call.args)
        except InputNeeded as needed:
            call.notes["input_required"] = True
            return ToolResult(structured=None, text="", input_required=needed.pending)
        structured = output.model_dump(mode="json", by_alias=True)
        try:
            text = output.to_text()
        except PydanticSerializationError:  # a lone surrogate read from a vault file: JSON cannot carry it
            structured = _scrubbed(structured)
            text = json.dumps(_scrubbed(output.model_dump(mode="json", exclude_none=True)), separators=(",", ":"))
        result = ToolResult(structured=structured, text=text, extra_content=output.content_blocks())
        # A facade call reports what its inner call did; any other tool changed something when it
        # is mutating and this was not a dry run.
        applied = call.notes.pop("inner_applied", None)
        if applied is None:
            applied = call.spec.mutating and not getattr(call.args, "dry_run", False)
        result.applied = bool(applied)
        return result


def _scrubbed(value: Any) -> Any:
    """`value` (a dumped answer) with every lone surrogate replaced by U+FFFD, in keys and strings.
    A file can hold one (a JSON `"\\ud800"` escape, as JavaScript writes half an emoji; a YAML
    one): the tool read it, and pydantic could not encode the answer (internal_error in
    list_bookmarks, query_base; U13 s79). An escaped pair stays the character it stands for."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_scrubbed(k): _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    return value
