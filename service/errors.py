"""The whole vaultgate error tree, in one place.

Domain code only raises these; `service.dispatch.translate` turns a `VaultgateError` into an MCP
tool result (`isError: true` with `{code, message, details, retryable, hint}`) and the HTTP tier
uses `http_status` where it answers before MCP. Anything else that escapes a handler becomes
`InternalError` with a correlation id. Tests assert `code`, never message text.

Two planes under one root. `VaultgateError` is how a tool call can end: it is what the translate
layer (and the resource and prompt handlers) catch. `StartupError` is what stops the server (or a
vault being added) from being set up; it is deliberately NOT a `VaultgateError`, so one escaping
a tool call (e.g. a migration failing in `reload_vault(apply=true)`) stays an `internal_error`
with a correlation id and a logged traceback, as it always was. The kind groups only gather their
members (`except AccessDenied`): each leaf keeps its own `code`, `retryable`, `http_status` and
hint, and no group is ever raised itself.

    VaultgateException                      root: anything vaultgate raises on purpose
    ├── VaultgateError                      how a tool call ends (code, retryable, http_status)
    │   ├── BadInput                        the arguments cannot work as given
    │   │   ├── ValidationFailed            validation_error
    │   │   ├── PathInvalid                 path_invalid
    │   │   ├── QuerySyntaxError            query_syntax_error
    │   │   ├── BasesSyntaxError            bases_syntax_error
    │   │   ├── AmbiguousNote               ambiguous_note          (details.candidates)
    │   │   └── NotANote                    not_a_note              (a folder or attachment where a note is expected)
    │   ├── Missing                         what the call names does not exist
    │   │   ├── ToolNotFound                not_found               (404)
    │   │   ├── VaultNotFound               vault_not_found         (404)
    │   │   └── NoteNotFound                note_not_found          (404; details.suggestions from note addresses)
    │   ├── AccessDenied                    the caller may not do this (now)
    │   │   ├── Unauthorized                unauthorized            (401)
    │   │   │   └── TokenRejected           unauthorized            (401; the HTTP tier's bearer check)
    │   │   ├── Forbidden                   forbidden               (403)
    │   │   ├── AclDenied                   acl_denied              (403)
    │   │   ├── ReadOnlyMode                read_only_mode          (403)
    │   │   └── ElicitRequired              elicit_required         (403)
    │   ├── StateConflict                   the vault or a key is not in the state the call needs
    │   │   ├── AlreadyExists               already_exists          (409)
    │   │   ├── Conflict                    conflict                (409)
    │   │   ├── IdempotencyInFlight         idempotency_in_flight   (409, retryable)
    │   │   └── IdempotencyKeyMismatch      idempotency_key_mismatch (409)
    │   ├── LimitExceeded                   a rate, size or compute limit
    │   │   ├── Throttled                   throttled               (429, retryable)
    │   │   ├── Overflow                    overflow                (413)
    │   │   └── ComputeBudgetExceeded       compute_budget_exceeded (422)
    │   ├── DependencyUnavailable           something the call needs is not there (yet)
    │   │   ├── IndexUnavailable            index_unavailable       (503, retryable)
    │   │   ├── EmbeddingUnavailable        embedding_unavailable   (503, retryable: a provider outage)
    │   │   ├── ServerStopping              server_stopping         (503, retryable: a long change rolled back)
    │   │   ├── ModeUnavailable             mode_unavailable        (501; this configuration cannot serve it)
    │   │   ├── PluginMissing               plugin_missing          (424)
    │   │   ├── PluginUnreachable           plugin_unreachable      (502, retryable)
    │   │   └── PluginIncompatible          plugin_incompatible     (424)
    │   ├── StorageFailed                   the operating system refused a file operation (details.path)
    │   │   ├── VaultUnreadable             vault_unreadable        (403; permission denied reading)
    │   │   ├── VaultUnwritable             vault_unwritable        (507; permission, read-only fs, disk full)
    │   │   └── IoError                     io_error                (500; any other OS error)
    │   └── InternalError                   internal_error          (500; details.correlation_id)
    └── StartupError                        not a tool error: the server cannot be set up as given
        ├── ConfigError                     bad configuration (the CLI prints it and exits)
        ├── RegistryError                   an inconsistent tool declaration (also a RuntimeError)
        └── MigrationError                  a schema migration failed (also a RuntimeError)

HTTP status is 400 where none is shown. Outside the tree on purpose:
`service.dispatch.context.InputNeeded` is a control-flow signal, not an error (a nested call
needs the client's input; the handler layer turns it into the call's own input request), so no
`except` of this tree may swallow it.
"""

from __future__ import annotations

from typing import Any, ClassVar


class VaultgateException(Exception):  # noqa: N818 - the root of both planes, never raised itself
    """Root of everything vaultgate raises on purpose; catch one of its two planes, not this."""


class VaultgateError(VaultgateException):
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


# How much of what the caller gave an error of theirs echoes back (`_Echoing`).
ECHO_MESSAGE_CHARS = 2000  # the message: its start and its end are kept, the middle cut
ECHO_DETAIL_CHARS = 1024  # each text in details (a longest vault path stays whole)
ELLIPSIS = "…"


def cut_middle(text: str, limit: int = ECHO_MESSAGE_CHARS) -> str:
    """`text` at most about `limit` characters: its start and end, the middle an ellipsis."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    return f"{text[:keep]}{ELLIPSIS}({len(text) - 2 * keep:,} characters cut){ELLIPSIS}{text[-keep:]}"


def bounded(value: Any, limit: int = ECHO_DETAIL_CHARS, depth: int = 0) -> Any:
    """`value` (JSON-like details) with every text, keys too, cut to `limit` characters and an ellipsis."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + ELLIPSIS
    if depth > 64:  # details are shallow; a value nested deeper is shown as a cut text
        return bounded(repr(value), limit)
    if isinstance(value, dict):
        return {bounded(k, limit): bounded(v, limit, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bounded(v, limit, depth + 1) for v in value]
    return value


class _Echoing(VaultgateError):
    """An error about what the caller gave, which it may echo (a heading, an argument's name):
    its message, hint and details are bounded here, so a 100,000-character argument is not sent
    back whole by whichever raise site names it."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None, hint: str | None = None) -> None:
        shown_hint = cut_middle(hint) if hint is not None else None
        super().__init__(cut_middle(message), details=bounded(details or {}), hint=shown_hint)


class BadInput(_Echoing):
    """The arguments cannot work as given: the same call fails the same way again."""


class Missing(_Echoing):
    """What the call names (a tool, a vault, a note) does not exist."""


class AccessDenied(VaultgateError):
    """The caller may not do this: no or a refused credential, a missing scope, the ACL, read-only
    mode, or a human has to confirm first."""


class StateConflict(VaultgateError):
    """The vault, or an idempotency key, is not in the state the call needs."""


class LimitExceeded(VaultgateError):
    """A rate, size or compute limit stopped the call."""


class DependencyUnavailable(VaultgateError):
    """Something the call needs (the index, embeddings, an Obsidian plugin) is not available."""


class StorageFailed(VaultgateError):
    """The operating system refused a file operation on a vault or the server's own folders
    (permissions, a read-only file system, a full disk, a name too long). Not a server bug and not
    retryable as is: someone has to fix the folder. `details.path` is vault-relative when the file
    is in the vault, `details.errno` names the OS error."""


class ValidationFailed(BadInput):
    code = "validation_error"
    default_hint = "Check the arguments against the tool's input schema (describe_capability returns it for any tool)."


class ToolNotFound(Missing):
    code = "not_found"
    http_status = 404
    default_hint = "List the available tools with tools/list."


class Unauthorized(AccessDenied):
    code = "unauthorized"
    http_status = 401


class Forbidden(AccessDenied):
    code = "forbidden"
    http_status = 403


class VaultNotFound(Missing):
    code = "vault_not_found"
    http_status = 404
    default_hint = "Call list_vaults to see the configured vault ids."


class NoteNotFound(Missing):
    code = "note_not_found"
    http_status = 404
    default_hint = "Check the path with list_notes or search_text."


class AmbiguousNote(BadInput):
    """A note address (a bare name, a partial path, an alias, a letter case) that fits several notes
    the caller may read; `details.candidates` lists them."""

    code = "ambiguous_note"
    default_hint = "Pass one of details.candidates (a full vault path) as the path."


class NotANote(BadInput):
    """A folder or an attachment passed where a note is expected."""

    code = "not_a_note"
    default_hint = "Pass a note's path; list_notes lists the notes in a folder."


class AlreadyExists(StateConflict):
    code = "already_exists"
    http_status = 409
    default_hint = (
        "Something is at details.path already: give another path, or read or edit what is there "
        "(create_note's if_exists='unique' numbers a new name beside it)."
    )


class Conflict(StateConflict):
    code = "conflict"
    http_status = 409
    default_hint = "The note changed since you read it: read it again and retry with the new etag."


class AclDenied(AccessDenied):
    code = "acl_denied"
    http_status = 403
    default_hint = "The vault's path ACL closes this path to this caller; work elsewhere (inspect_acl explains rules)."


class ReadOnlyMode(AccessDenied):
    code = "read_only_mode"
    http_status = 403


class PathInvalid(BadInput):
    code = "path_invalid"
    default_hint = "Use a relative path inside the vault with forward slashes, e.g. 'Projects/Plan.md'."


class IdempotencyInFlight(StateConflict):
    code = "idempotency_in_flight"
    retryable = True
    http_status = 409


class IdempotencyInterrupted(StateConflict):
    """The server running the first call with this key stopped (killed, crashed) before it ended:
    it may have changed the vault. Not retryable with the same key (service.policy.idempotency)."""

    code = "idempotency_interrupted"
    http_status = 409


class IdempotencyKeyMismatch(StateConflict):
    code = "idempotency_key_mismatch"
    http_status = 409


class Throttled(LimitExceeded):
    code = "throttled"
    retryable = True
    http_status = 429


class ElicitRequired(AccessDenied):
    code = "elicit_required"
    http_status = 403


class Overflow(LimitExceeded):
    code = "overflow"
    http_status = 413
    default_hint = "Narrow the request (fewer paths, a heading or line range) or paginate with limit/cursor."


def answers_whole(tool: str) -> str:
    """The overflow hint of a tool that takes no argument asking for less (read_canvas)."""
    return (
        f"{tool} answers whole and this answer is over the response limit: an operator can raise "
        "governor.max_response_bytes (or the tool's own bound)."
    )


class ComputeBudgetExceeded(LimitExceeded):
    code = "compute_budget_exceeded"
    http_status = 422


class IndexUnavailable(DependencyUnavailable):
    code = "index_unavailable"
    retryable = True
    http_status = 503


class EmbeddingUnavailable(DependencyUnavailable):
    code = "embedding_unavailable"
    retryable = True
    http_status = 503


class ServerStopping(DependencyUnavailable):
    """The server began to stop while a journaled change of many files was being written: the
    change stopped at its next file and was rolled back (`service.vault.commit`). Nothing changed;
    the same call goes through once the server is back. When a file could not be put back (changed
    since), `details.not_rolled_back` counts them and the message says so."""

    code = "server_stopping"
    retryable = True
    http_status = 503


class ModeUnavailable(DependencyUnavailable):
    """A mode this server's configuration can never serve (unlike `embedding_unavailable`, which
    is a transient outage of a configured provider): retrying cannot help, the hint says what
    enables it."""

    code = "mode_unavailable"
    http_status = 501


class PluginMissing(DependencyUnavailable):
    code = "plugin_missing"
    http_status = 424


class PluginUnreachable(DependencyUnavailable):
    code = "plugin_unreachable"
    retryable = True
    http_status = 502


class PluginIncompatible(DependencyUnavailable):
    code = "plugin_incompatible"
    http_status = 424


class BasesSyntaxError(BadInput):
    code = "bases_syntax_error"


class QuerySyntaxError(BadInput):
    code = "query_syntax_error"


class VaultUnreadable(StorageFailed):
    code = "vault_unreadable"
    http_status = 403
    default_hint = "The server's user may not read this file or folder: check its owner and permissions."


class VaultUnwritable(StorageFailed):
    code = "vault_unwritable"
    http_status = 507
    default_hint = (
        "The server cannot write here (permissions, a read-only file system or a full disk): "
        "fix the folder, or mark the vault read_only in the configuration."
    )


class IoError(StorageFailed):
    code = "io_error"
    http_status = 500
    default_hint = "The operating system refused the file operation; details.errno names the error."


class InternalError(VaultgateError):
    code = "internal_error"
    http_status = 500
    default_hint = "This is a server bug; quote the correlation id when reporting it."


class TokenRejected(Unauthorized):
    """Why a bearer token was refused (the reason goes into WWW-Authenticate, never secrets).

    Raised and caught only in the HTTP tier (`service.security.jwt` raises it, the edge answers
    401 with `str(exc)` as the description); no tool call can end with it."""


class StartupError(VaultgateException):
    """The server, or a vault being added, cannot be set up as given. Not a `VaultgateError`:
    should one escape a tool call, it becomes `internal_error` like any unexpected exception."""


class ConfigError(StartupError):
    """Configuration that cannot be served; raised at start-up, never to a caller. `problems`
    lists every problem found in one run (the message shows them all)."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems) if problems else [message]


class RegistryError(StartupError, RuntimeError):
    """An inconsistent tool declaration; raised at start-up."""


class MigrationError(StartupError, RuntimeError):
    """A migration failed; its transaction was rolled back and it was not recorded."""


def _descendants(cls: type[VaultgateError]) -> list[type[VaultgateError]]:
    return [found for sub in cls.__subclasses__() for found in (sub, *_descendants(sub))]


# The codes callers can see: every class that declares one (the kind groups declare none).
ERROR_CODES: frozenset[str] = frozenset(cls.code for cls in _descendants(VaultgateError) if "code" in vars(cls))
