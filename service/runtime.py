"""The shared services every layer and tool reaches through one object, built by `app.py`.

`PathGuard` is the path-ACL seam: the default guard allows everything the path resolver lets
through (hidden folders are already refused there); the security layer installs the real one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from service.dispatch.context import Principal
    from service.settings import Settings
    from service.storage.db import Database
    from service.tools.registry import Registry
    from service.vault.runtime import Vault


class PathGuard(Protocol):
    def check(self, principal: Principal, vault: Vault, rel: str, op: str) -> None:
        """Raise `AclDenied` when `principal` may not do `op` on `rel`."""

    def allows(self, principal: Principal, vault: Vault, rel: str, op: str) -> bool: ...


class OpenGuard:
    """No path rules configured: every visible path is allowed."""

    def check(self, principal: Principal, vault: Vault, rel: str, op: str) -> None:
        return None

    def allows(self, principal: Principal, vault: Vault, rel: str, op: str) -> bool:
        return True


@dataclass
class Services:
    settings: Settings
    registry: Registry
    vaults: dict[str, Vault]
    db: Database
    guard: PathGuard = field(default_factory=OpenGuard)
    started_at: float = field(default_factory=time.time)
    extensions: dict[str, Any] = field(default_factory=dict)
