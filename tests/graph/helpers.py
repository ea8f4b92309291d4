"""Test helpers for graph and properties tests."""

from __future__ import annotations

from service.dispatch.context import CallContext
from service.tools.context import ToolContext
from tests.conftest import Harness


def tool_context(vg: Harness) -> ToolContext:
    """A ToolContext on the harness's only vault, for unit-testing confirm_when functions."""
    services = vg.app.services
    vault = next(iter(services.vaults.values()))
    call = CallContext(tool="test", raw_args={}, principal=vg.principal, transport="inproc")
    return ToolContext(call=call, vault=vault, services=services)
