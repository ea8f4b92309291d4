"""The per-call state that flows through the dispatch layers, and what the chain returns.

Layers talk to each other only through `CallContext`: each reads what earlier layers set
(`spec`, `args_hash`, `args`, `vault`) and may record facts for outer layers in `notes`
(confirmation used, idempotent replay, overflow size). `tool_context` is the narrower view a
tool's hooks and handler get of the call (`service.tools.context.ToolContext`).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from service.errors import VaultgateError
from service.tools.context import ToolContext
from service.types import Principal, ProgressFn, Transport

if TYPE_CHECKING:
    from service.services import Services
    from service.tools.models import ToolInput
    from service.tools.spec import ToolSpec
    from service.vault.vault import Vault


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
    # `structured` as compact JSON, as the governor serialized it to count its size (None: not
    # counted): a transport writing the answer itself reuses it (`fast_path.result_json`) instead
    # of serializing the note a second time. Nothing changes `structured` after the governor.
    structured_json: bytes | None = None

    @classmethod
    def failure(cls, error: VaultgateError) -> ToolResult:
        payload = {"error": error.to_payload()}
        return cls(structured=payload, text=json.dumps(payload, ensure_ascii=False), is_error=True, error=error)

    @property
    def error_code(self) -> str | None:
        return self.error.code if self.error is not None else None


_PROCESS_TAG = os.urandom(4).hex()
_CALL_NUMBERS = itertools.count(1)


def new_correlation_id() -> str:
    """16 hex digits: a random tag drawn once per process, then the call's number in it. Unique
    in the process and across restarts in practice, without a system call per call (a `uuid4`
    per call was ~3 % of the event loop's time under 32 clients)."""
    return f"{_PROCESS_TAG}{next(_CALL_NUMBERS) & 0xFFFFFFFF:08x}"


@dataclass(slots=True)
class CallContext:
    tool: str
    raw_args: dict[str, Any]
    principal: Principal
    transport: Transport
    request: Any = None  # the SDK request context (opaque to layers; used by entry and elicitation)
    meta: dict[str, Any] = field(default_factory=dict)  # the request's `_meta` (validate reads META_KEYS)
    progress: ProgressFn | None = None
    spec: ToolSpec | None = None
    args_hash: str = ""
    args: ToolInput | None = None
    vault: Vault | None = None
    correlation_id: str = field(default_factory=new_correlation_id)
    started: float = field(default_factory=time.perf_counter)
    notes: dict[str, Any] = field(default_factory=dict)

    def tool_context(self, services: Services) -> ToolContext:
        """What the tool's hooks and handler see of this call (its vault must be resolved)."""
        assert self.vault is not None
        return ToolContext(
            principal=self.principal,
            vault=self.vault,
            services=services,
            transport=self.transport,
            request=self.request,
            report=self.progress,
            correlation_id=self.correlation_id,
            notes=self.notes,
        )


Next = Callable[[CallContext], Awaitable[ToolResult]]
# What the layers that run tool code (precheck, confirm, handler) are given to build a `ToolContext`
# from a call: `build_layers` binds the shared services once, so those layers never hold them.
ContextFor = Callable[[CallContext], ToolContext]


class Layer(Protocol):
    """One step of the chain: do its work, then `await next(call)` or short-circuit."""

    name: str

    async def __call__(self, call: CallContext, next: Next) -> ToolResult: ...
