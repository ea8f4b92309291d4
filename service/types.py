"""Shared types at the bottom of the package: who calls, what they may hold, what a call reports.

A leaf module, like `starlette/types.py`: it imports nothing from `service`, so every layer may
import it without creating a circle. It holds
- `SCOPES`, the one list of scope names (every other scope set is derived from it), the
  operation (`Op`) and the scope class (`ScopeClass`) of a tool;
- `Principal`, the caller as the HTTP edge (or the transport) established it, and where the
  edge leaves it in the ASGI scope (`PRINCIPAL_KEY`, `principal_of_scope`);
- `Transport` and `ProgressFn`, the call's transport and its progress reporter;
- the protocols lower layers declare and higher layers satisfy: `PathGuard` (the path ACL seam;
  `OpenGuard` allows every visible path), `NestedCall`/`CallOutcome` (a tool running another
  tool through the dispatch chain, as the facade does) and `ClientLog` (log notifications).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

# -- scopes -------------------------------------------------------------------------------------

SCOPES: tuple[str, ...] = ("read:vault", "write:vault", "delete:vault", "execute:command", "execute:plugin", "admin")
ALL_SCOPES: frozenset[str] = frozenset(SCOPES)
READ_SCOPES: frozenset[str] = frozenset({"read:vault"})
WRITE_SCOPES: frozenset[str] = ALL_SCOPES - READ_SCOPES  # a read-only tool may declare none of these

Op = Literal["read", "write", "delete"]
ScopeClass = Literal["read", "write", "delete", "bulk", "execute", "admin"]
Transport = Literal["http", "stdio", "inproc"]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


# -- the caller ---------------------------------------------------------------------------------


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


PRINCIPAL_KEY = "vaultgate.principal"  # the ASGI scope key the HTTP edge sets after verifying


# Who sent an MCP request (its SDK request context): the principal and the transport.
PrincipalFor = Callable[[Any], tuple[Principal, Transport]]


def principal_of_scope(scope: Mapping[str, Any]) -> Principal | None:
    """The principal the edge verified for this request (clients cannot set scope keys)."""
    found = scope.get(PRINCIPAL_KEY)
    return found if isinstance(found, Principal) else None


# -- seams --------------------------------------------------------------------------------------


class PathGuard(Protocol):
    """The path-ACL seam: the security layer installs the real guard (`AclGuard`)."""

    # Changes whenever the rules do (a reload): an answer filtered by the rules before is stale.
    rules_version: int

    def check(self, principal: Principal, vault: Any, rel: str, op: str) -> None:
        """Raise `AclDenied` when `principal` may not do `op` on `rel`."""

    def allows(self, principal: Principal, vault: Any, rel: str, op: str) -> bool: ...

    def is_read_only(self, vault_id: str) -> bool:
        """The vault's kill switch: every mutating tool is refused (the `acl` dispatch layer)."""


class OpenGuard:
    """No path rules configured: every visible path is allowed (the resolver already refused
    hidden folders)."""

    rules_version = 0

    def check(self, principal: Principal, vault: Any, rel: str, op: str) -> None:
        return None

    def allows(self, principal: Principal, vault: Any, rel: str, op: str) -> bool:
        return True

    def is_read_only(self, vault_id: str) -> bool:
        return False


class CallOutcome(Protocol):
    """What a nested call reports back (the dispatch chain's `ToolResult` is one)."""

    @property
    def structured(self) -> dict[str, Any] | None: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def error(self) -> Exception | None: ...

    @property
    def input_required(self) -> Any: ...

    @property
    def applied(self) -> bool: ...

    @property
    def extra_content(self) -> list[Any]: ...


class NestedCall(Protocol):
    """Run another tool through the whole dispatch chain (`Dispatcher.call`)."""

    def __call__(
        self,
        tool: str,
        arguments: dict[str, Any] | None,
        *,
        principal: Principal,
        transport: Transport = "inproc",
        request: Any = None,
        progress: ProgressFn | None = None,
        input_responses: Any = None,
        request_state: str | None = None,
    ) -> Awaitable[CallOutcome]: ...


class ClientLog(Protocol):
    """Log notifications to the client of a request (`service.protocol.client_log.ClientLogs`)."""

    async def send(self, request: Any, level: LogLevel, data: Any, /) -> None: ...
