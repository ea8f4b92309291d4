"""The typical failures of the admin tools that had none: an unknown vault, a missing scope."""

from __future__ import annotations

import pytest

from service.types import Principal
from tests.conftest import Harness

READER = Principal(subject="reader", scopes=frozenset({"read:vault"}), authenticated=True)


@pytest.mark.covers("server_health", "failure")
async def test_server_health_of_an_unknown_vault_is_vault_not_found(vg: Harness) -> None:
    error = await vg.err("server_health", "vault_not_found", vault="nope")
    assert error["details"] == {"vault": "nope"}


@pytest.mark.covers("reload_vault", "failure")
async def test_reload_vault_needs_the_admin_scope_and_changes_nothing(vg: Harness) -> None:
    vg.principal = READER
    error = await vg.err("reload_vault", "forbidden", apply=True)
    assert error["details"]["required"] == ["admin"] and error["details"]["tool"] == "reload_vault"
    assert list(vg.app.vaults) == ["main"]
