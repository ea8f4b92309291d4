"""The official TypeScript MCP client against `vaultgate serve` and `vaultgate stdio`.

The TypeScript client checks `structuredContent` against the tool's `outputSchema` on every result,
failed ones included, and raises `-32602` instead of returning a result that does not fit. Each
failing call must therefore come back as a result whose structured error (code, message, hint,
retryable, details) is exactly what the Python SDK client receives for the same call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.interop import tooling

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

# (arguments of read_note, expected error code or None for a success)
CASES: list[tuple[dict[str, Any], str | None]] = [
    ({"path": "Welcome.md"}, None),
    ({"path": "No such note.md"}, "note_not_found"),
    ({"path": "Welcome.md", "bogus": 1}, "validation_error"),
    ({"path": tooling.SECRET_NOTE}, "acl_denied"),
]


async def python_sdk_results(url: str) -> list[dict[str, Any]]:
    """What the Python SDK client receives for each case: the reference."""
    out = []
    async with Client(url) as client:
        for args, _ in CASES:
            result = await client.call_tool("read_note", args)
            out.append({"isError": bool(result.is_error), "structuredContent": result.structured_content})
    return out


def check(report: dict[str, Any], reference: list[dict[str, Any]]) -> None:
    assert "read_note" in report["tools"]
    for (args, code), outcome, expected in zip(CASES, report["results"], reference, strict=True):
        assert "thrown" not in outcome, f"the TypeScript client raised for {args}: {outcome['thrown']}"
        result = outcome["result"]
        assert bool(result.get("isError")) is (code is not None), (args, result)
        if code is None:
            assert result["structuredContent"]["path"] == "Welcome.md"
            assert result["structuredContent"]["content"] == expected["structuredContent"]["content"]
            continue
        error = result["structuredContent"]["error"]
        assert error["code"] == code, error
        assert error["message"] and error["hint"], error
        assert result["structuredContent"] == expected["structuredContent"], args
        assert code in result["content"][0]["text"]


def plan_calls() -> list[dict[str, Any]]:
    return [{"name": "read_note", "arguments": args} for args, _ in CASES]


async def test_typescript_client_over_streamable_http(served: tooling.Served) -> None:
    reference = await python_sdk_results(served.url)
    assert [r["structuredContent"].get("error", {}).get("code") for r in reference] == [c for _, c in CASES]
    report = tooling.ts_client({"transport": "http", "url": served.url, "calls": plan_calls()})
    check(report, reference)


async def test_typescript_client_over_stdio(served: tooling.Served, tmp_path: Path) -> None:
    reference = await python_sdk_results(served.url)
    command, args = tooling.stdio_command(served.root)
    env = {k: v for k, v in tooling.server_env().items() if k.startswith("VAULTGATE_") or k == "PYTHONPATH"}
    plan = {"transport": "stdio", "command": command, "args": args, "env": env, "calls": plan_calls()}
    report = tooling.ts_client(plan)
    check(report, reference)
