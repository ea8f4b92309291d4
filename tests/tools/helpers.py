"""Test helpers for graph and properties tests."""

from __future__ import annotations

from service.tools.context import ToolContext
from tests.conftest import Harness


def tool_context(vg: Harness) -> ToolContext:
    """A ToolContext on the harness's only vault, for unit-testing confirm_when functions."""
    services = vg.app.services
    vault = next(iter(services.vaults.values()))
    return ToolContext(principal=vg.principal, vault=vault, services=services)
