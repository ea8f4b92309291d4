"""How MCP requests are served (`[protocol]`): the stdio fast path for tool calls."""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class ProtocolSettings(Section):
    fast_calls: bool = Field(
        default=True,
        description="Over stdio, 2025-era HTTP sessions and 2026-07-28 HTTP requests, answer a plain tools/call "
        "(reads and writes; "
        "a write that may ask for confirmation only for a client without elicitation) without the MCP "
        "SDK's per-request machinery (same answer, a fraction of the CPU; service/protocol/fast_path.py). "
        "false: every request goes through the SDK.",
    )
