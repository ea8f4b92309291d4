"""The per-call state that flows through the dispatch layers, and what the chain returns.

Layers talk to each other only through `CallContext`: each reads what earlier layers set
(`spec`, `args_hash`, `args`, `vault`) and may record facts for outer layers in `notes`
(confirmation used, idempotent replay, overflow size).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from service.errors import VaultgateError

if TYPE_CHECKING:
    from service.tools.models import ToolInput
    from service.tools.spec import ToolSpec
    from service.vault.runtime import Vault

ALL_SCOPES = frozenset({"read:vault", "write:vault", "delete:vault", "execute:command", "execute:plugin", "admin"})

Transport = Literal["http", "stdio", "inproc"]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: subject, granted scopes and an optional vault binding."""

    subject: str
    scopes: frozenset[str]
    vault: str | None = None
    authenticated: bool = False

    @classmethod
    def local(cls, subject: str = "local") -> Principal:
        """stdio and auth `none` callers: full scopes, no binding."""
        return cls(subject=subject, scopes=ALL_SCOPES, vault=None, authenticated=False)


@dataclass(slots=True)
class ToolResult:
    """The outcome of one call: structured content + text, or a structured error."""

    structured: dict[str, Any] | None
    text: str
    is_error: bool = False
    error: VaultgateError | None = None
    extra_content: list[Any] = field(default_factory=list)
    size: int = 0
    # Protocol 2026-07-28: the call needs the client's input first (an InputRequiredResult).
    input_required: Any = None
    # A change was made (a mutating tool, not a dry run): the governor never turns it into an error.
    applied: bool = False

    @classmethod
    def failure(cls, error: VaultgateError) -> ToolResult:
        payload = {"error": error.to_payload()}
        return cls(structured=payload, text=json.dumps(payload, ensure_ascii=False), is_error=True, error=error)

    @property
    def error_code(self) -> str | None:
        return self.error.code if self.error is not None else None


class InputNeeded(Exception):  # noqa: N818 - a signal, not an error
    """A handler ran a nested call (the facade) that needs the client's input first: the handler
    layer turns it into this call's own InputRequiredResult, so the client asks its human and
    retries the outer call with the answer."""

    def __init__(self, pending: Any) -> None:
        super().__init__("input required")
        self.pending = pending


@dataclass(slots=True)
class CallContext:
    tool: str
    raw_args: dict[str, Any]
    principal: Principal
    transport: Transport
    request: Any = None  # the SDK request context (opaque to layers; used by entry and elicitation)
    progress: ProgressFn | None = None
    spec: ToolSpec | None = None
    args_hash: str = ""
    args: ToolInput | None = None
    vault: Vault | None = None
    correlation_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    started: float = field(default_factory=time.perf_counter)
    notes: dict[str, Any] = field(default_factory=dict)


Next = Callable[[CallContext], Awaitable[ToolResult]]


class Layer(Protocol):
    """One step of the chain: do its work, then `await next(call)` or short-circuit."""

    name: str

    async def __call__(self, call: CallContext, next: Next) -> ToolResult: ...
