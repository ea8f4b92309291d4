"""The whole vaultgate error tree, in one place.

Domain code only raises these; `service.dispatch.translate` turns them into MCP tool results
(`isError: true` with `{code, message, details, retryable, hint}`) and the HTTP tier uses
`http_status` where it answers before MCP. Anything else that escapes a handler becomes
`InternalError` with a correlation id. Tests assert `code`, never message text.

    VaultgateError
    ├── ValidationFailed        validation_error
    ├── ToolNotFound            not_found
    ├── Unauthorized            unauthorized            (401)
    ├── Forbidden               forbidden               (403)
    ├── VaultNotFound           vault_not_found
    ├── NoteNotFound            note_not_found
    ├── AlreadyExists           already_exists
    ├── Conflict                conflict
    ├── AclDenied               acl_denied
    ├── ReadOnlyMode            read_only_mode
    ├── PathInvalid             path_invalid
    ├── IdempotencyInFlight     idempotency_in_flight   (retryable)
    ├── IdempotencyKeyMismatch  idempotency_key_mismatch
    ├── Throttled               throttled               (retryable)
    ├── ElicitRequired          elicit_required
    ├── Overflow                overflow
    ├── ComputeBudgetExceeded   compute_budget_exceeded
    ├── IndexUnavailable        index_unavailable       (retryable)
    ├── EmbeddingUnavailable    embedding_unavailable   (retryable)
    ├── PluginMissing           plugin_missing
    ├── PluginUnreachable       plugin_unreachable      (retryable)
    ├── PluginIncompatible      plugin_incompatible
    ├── BasesSyntaxError        bases_syntax_error
    ├── QuerySyntaxError        query_syntax_error
    └── InternalError           internal_error          (carries details.correlation_id)

    ConfigError                 not a tool error: bad configuration at start-up
"""

from __future__ import annotations

from typing import Any, ClassVar


class VaultgateError(Exception):
    """Base of every error a tool call can end with."""

    code: ClassVar[str] = "internal_error"
    retryable: ClassVar[bool] = False
    http_status: ClassVar[int] = 400
    default_hint: ClassVar[str | None] = None

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.hint = hint if hint is not None else self.default_hint

    def to_payload(self) -> dict[str, Any]:
        """The structured error object sent to callers."""
        return {
            "code": self.code,
            "message": self.message,
            "details": self.details,
            "retryable": self.retryable,
            "hint": self.hint,
        }


class ValidationFailed(VaultgateError):
    code = "validation_error"
    default_hint = "Check the arguments against the tool's input schema (describe it with tools/list)."


class ToolNotFound(VaultgateError):
    code = "not_found"
    http_status = 404
    default_hint = "List the available tools with tools/list."


class Unauthorized(VaultgateError):
    code = "unauthorized"
    http_status = 401


class Forbidden(VaultgateError):
    code = "forbidden"
    http_status = 403


class VaultNotFound(VaultgateError):
    code = "vault_not_found"
    http_status = 404
    default_hint = "Call list_vaults to see the configured vault ids."


class NoteNotFound(VaultgateError):
    code = "note_not_found"
    http_status = 404
    default_hint = "Check the path with list_notes or search_text."


class AlreadyExists(VaultgateError):
    code = "already_exists"
    http_status = 409


class Conflict(VaultgateError):
    code = "conflict"
    http_status = 409
    default_hint = "The note changed since you read it: read it again and retry with the new etag."


class AclDenied(VaultgateError):
    code = "acl_denied"
    http_status = 403


class ReadOnlyMode(VaultgateError):
    code = "read_only_mode"
    http_status = 403


class PathInvalid(VaultgateError):
    code = "path_invalid"
    default_hint = "Use a relative path inside the vault with forward slashes, e.g. 'Projects/Plan.md'."


class IdempotencyInFlight(VaultgateError):
    code = "idempotency_in_flight"
    retryable = True
    http_status = 409


class IdempotencyKeyMismatch(VaultgateError):
    code = "idempotency_key_mismatch"
    http_status = 409


class Throttled(VaultgateError):
    code = "throttled"
    retryable = True
    http_status = 429


class ElicitRequired(VaultgateError):
    code = "elicit_required"
    http_status = 403


class Overflow(VaultgateError):
    code = "overflow"
    http_status = 413
    default_hint = "Narrow the request (fewer paths, a heading or line range) or paginate with limit/cursor."


class ComputeBudgetExceeded(VaultgateError):
    code = "compute_budget_exceeded"
    http_status = 422


class IndexUnavailable(VaultgateError):
    code = "index_unavailable"
    retryable = True
    http_status = 503


class EmbeddingUnavailable(VaultgateError):
    code = "embedding_unavailable"
    retryable = True
    http_status = 503


class PluginMissing(VaultgateError):
    code = "plugin_missing"
    http_status = 424


class PluginUnreachable(VaultgateError):
    code = "plugin_unreachable"
    retryable = True
    http_status = 502


class PluginIncompatible(VaultgateError):
    code = "plugin_incompatible"
    http_status = 424


class BasesSyntaxError(VaultgateError):
    code = "bases_syntax_error"


class QuerySyntaxError(VaultgateError):
    code = "query_syntax_error"


class InternalError(VaultgateError):
    code = "internal_error"
    http_status = 500
    default_hint = "This is a server bug; quote the correlation id when reporting it."


class ConfigError(Exception):
    """Configuration that cannot be served; raised at start-up, never to a caller."""


ERROR_CODES: frozenset[str] = frozenset(cls.code for cls in VaultgateError.__subclasses__())
