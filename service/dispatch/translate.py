"""The one boundary where exceptions become tool results.

`VaultgateError`s become structured errors as they are; anything else becomes
`internal_error` carrying a correlation id, logged once with its traceback. Nothing about
the exception (message, host paths, stack) reaches the caller.
"""

from __future__ import annotations

import logging

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import InternalError, VaultgateError

log = logging.getLogger("vaultgate.dispatch")


class Translate:
    name = "translate"

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        try:
            return await next(call)
        except VaultgateError as exc:
            return ToolResult.failure(exc)
        except Exception:
            log.exception("tool %s failed (correlation_id=%s)", call.tool, call.correlation_id)
            return ToolResult.failure(
                InternalError(
                    "internal error while running the tool",
                    details={"correlation_id": call.correlation_id},
                )
            )
