"""One tool call through an MCP SDK client, checked: `ok` returns the structured result of a
success, `error` the structured error of a failure. Arguments as a dict, keywords, or both."""

from __future__ import annotations

from typing import Any


async def ok(client: Any, tool: str, args: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, {**(args or {}), **kwargs})
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    out: dict[str, Any] = result.structured_content
    return out


async def error(client: Any, tool: str, args: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, {**(args or {}), **kwargs})
    assert result.is_error and result.structured_content is not None, result.structured_content
    err: dict[str, Any] = result.structured_content["error"]
    return err
