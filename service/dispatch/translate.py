"""The one boundary where exceptions become tool results.

`VaultgateError`s become structured errors as they are; anything else becomes
`internal_error` carrying a correlation id, logged once with its traceback. An `OSError`
(permissions, a read-only or full file system, a name too long) is not a bug: it becomes a
`StorageFailed` error (`service.vault.oserrors`) with the vault-relative path, and so does
SQLite reporting a read-only, full or failing disk under the server's own folders; both are
logged once at warning level without a traceback. Nothing about the exception (message, host paths, stack)
reaches the caller beyond that.
"""

from __future__ import annotations

import logging

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import InternalError, VaultgateError
from service.storage.db import DbOperationalError
from service.vault.oserrors import database_error, storage_error

log = logging.getLogger("vaultgate.dispatch")


class Translate:
    name = "translate"

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        try:
            return await next(call)
        except VaultgateError as exc:
            return ToolResult.failure(exc)
        except OSError as exc:
            root = call.vault.paths.root if call.vault is not None else None
            writing = call.spec is not None and call.spec.mutating
            error = storage_error(exc, root, writing=writing)
            log.warning("tool %s: %s (%s, correlation_id=%s)", call.tool, exc, error.code, call.correlation_id)
            return ToolResult.failure(error)
        except DbOperationalError as exc:
            found = database_error(exc)
            if found is None:
                return self._internal(call)
            log.warning("tool %s: %s (%s, correlation_id=%s)", call.tool, exc, found.code, call.correlation_id)
            return ToolResult.failure(found)
        except Exception:
            return self._internal(call)

    @staticmethod
    def _internal(call: CallContext) -> ToolResult:
        """`internal_error` for the exception being handled, logged with its traceback."""
        log.exception("tool %s failed (correlation_id=%s)", call.tool, call.correlation_id)
        return ToolResult.failure(
            InternalError("internal error while running the tool", details={"correlation_id": call.correlation_id})
        )
