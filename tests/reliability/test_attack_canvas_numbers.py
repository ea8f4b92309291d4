"""A canvas whose numbers are not finite (U1, session 80).

`1e400` is valid JSON, and Python's reader (like JavaScript's) takes it for infinity; Python
also takes `NaN` and `Infinity`. read_canvas passed such a coordinate or size on: the answer
carried null where its output schema says number, and the MCP SDK client refused the whole
answer (`RuntimeError: Invalid structured content returned by tool read_canvas`) instead of
getting a result or a tool error. Now a canvas holding a number that is not finite is a file
read_canvas cannot read (`validation_error`, reason `invalid_json`, naming the number), as one
nested too deep; the rest of the vault reads as before. Through the dispatch chain and over HTTP
(SDK client, both eras).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e, started
from tests.e2e.calls import error, ok

NODE = {"id": "a", "type": "text", "text": "hello", "x": 0, "y": 0, "width": 10, "height": 10}


def canvas(**numbers: str) -> str:
    text = json.dumps({"nodes": [NODE], "edges": []})
    for key, value in numbers.items():
        text = text.replace(f'"{key}": {NODE[key]}', f'"{key}": {value}')
    return text


FILES = {
    "Huge.canvas": canvas(width="1e400"),
    "Nan.canvas": canvas(x="NaN"),
    "Inf.canvas": canvas(y="-Infinity"),
    "Fine.canvas": canvas(x="1e300", y="-12.5"),
    "Home.md": "# Home\n",
}
ODD = ["Huge.canvas", "Nan.canvas", "Inf.canvas"]


async def test_non_finite_numbers_are_refused_by_name(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        for name in ODD:
            refused = await vg.err("read_canvas", "validation_error", path=name)
            assert refused["details"] == {"path": name, "reason": "invalid_json"}, refused
            assert "finite" in refused["message"], refused
        fine = await vg.ok("read_canvas", path="Fine.canvas")
        assert (fine["nodes"][0]["x"], fine["nodes"][0]["y"]) == (1e300, -12.5)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_non_finite_numbers_are_tool_errors_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES), tool_facade={"mode": "flat"}) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        for name in ODD:  # the client refused the answer (RuntimeError: invalid structured content)
            assert (await error(c, "read_canvas", path=name))["code"] == "validation_error"
        assert (await ok(c, "read_canvas", path="Fine.canvas"))["nodes"][0]["text"] == "hello"
