"""How MCP requests are served (`[protocol]`): the stdio fast path for tool calls."""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class ProtocolSettings(Section):
    fast_calls: bool = Field(
        default=True,
        description="Over stdio, answer a plain read-only tools/call without the MCP SDK's per-request "
        "machinery (same answer, a fraction of the CPU; service/protocol/fast_calls.py). false: every "
        "request goes through the SDK.",
    )
