"""Response governor: serialize the result once and refuse results over the byte budget.

The limit is the tool's own `max_bytes` when declared, else `governor.max_response_bytes`.
An oversized result becomes `overflow` with the size, the limit and a way forward.
"""

from __future__ import annotations

import json

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Overflow
from service.settings import GovernorSettings


class Governor:
    name = "governor"

    def __init__(self, settings: GovernorSettings) -> None:
        self.max_bytes = settings.max_response_bytes

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        result = await next(call)
        if result.is_error or result.input_required is not None:
            return result
        body = json.dumps(result.structured, ensure_ascii=False, separators=(",", ":"))
        size = len(body.encode("utf-8")) + len(result.text.encode("utf-8"))
        size += sum(len(str(c)) for c in result.extra_content)
        result.size = size
        limit = self.max_bytes
        if call.spec is not None and call.spec.max_bytes is not None:
            limit = min(limit, call.spec.max_bytes)
        if size > limit:
            call.notes["overflow_bytes"] = size
            raise Overflow(
                f"result of {size} bytes exceeds the {limit}-byte limit",
                details={"bytes": size, "limit": limit, "tool": call.tool},
            )
        return result
