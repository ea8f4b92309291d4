"""A canvas or an Excalidraw drawing nested deep (U11, session 77): read_canvas and read_excalidraw
pass a file's nodes or scene back inside the answer, and nothing bounded how deep that JSON nests.
A canvas nested 200 levels was answered, and the MCP SDK client could not parse the answer (its
JSON parser, pydantic, refuses a message nested past ~200: `MCPError: Failed to parse JSON
response`); one nested 260 levels was an internal_error (the server's own serializer stops near
255). Such files come from elsewhere (another program, a synced copy): the tools cannot write
one, their arguments nest at most 48 levels. Now a canvas or scene nested deeper than
`MAX_FILE_DEPTH` is a file these tools cannot read (validation_error naming it; the indexer
leaves such a canvas's words out, as for any JSON it cannot read), `service.obsidian.json_depth`.
Through the dispatch chain, over HTTP with JWT auth (both protocol eras) and over stdio.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.obsidian.json_depth import MAX_FILE_DEPTH, too_deep
from tests.conftest import e2e, started
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_tasks_e2e import client
from tests.keys import SECRET, claims, hs


def nested(depth: int) -> Any:
    """A value of `depth` levels of arrays ([[…[1]…]])."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def canvas(meta_depth: int) -> str:
    """A canvas whose one text node carries a field nested `meta_depth` levels (the file: +3)."""
    node = {"id": "a", "type": "text", "text": "hello", "x": 0, "y": 0, "width": 10, "height": 10, "meta": 0}
    text = json.dumps({"nodes": [node], "edges": []})
    return text.replace('"meta": 0', '"meta": ' + "[" * meta_depth + "1" + "]" * meta_depth)


def drawing(custom_depth: int) -> str:
    element = {"id": "r1", "type": "rectangle", "x": 0, "y": 0, "width": 5, "height": 5}
    scene = {"type": "excalidraw", "version": 2, "elements": [{**element, "customData": nested(custom_depth)}]}
    scene |= {"appState": {}, "files": {}}
    return (
        "---\nexcalidraw-plugin: parsed\n---\n# Text Elements\n\n%%\n# Drawing\n```json\n"
        + json.dumps(scene)
        + "\n```\n%%\n"
    )


FILES = {
    "Shallow.canvas": canvas(5),
    "Deep200.canvas": canvas(197),  # 200 levels: an answer the SDK client could not parse
    "Deep260.canvas": canvas(257),  # 260 levels: internal_error
    "Deep5000.canvas": canvas(4997),  # past Python's recursion limit: refused before too
    "Shallow.excalidraw.md": drawing(5),
    "Deep.excalidraw.md": drawing(257),
    "Home.md": "# Home\n",
}
DEEP = ["Deep200.canvas", "Deep260.canvas", "Deep5000.canvas"]


def test_the_depth_is_measured_without_recursion() -> None:
    assert not too_deep(nested(MAX_FILE_DEPTH))  # the 1 inside is no level
    assert too_deep(nested(MAX_FILE_DEPTH + 1))
    assert too_deep(nested(50_000))  # deeper than Python recurses
    assert not too_deep({"a": [{"b": []}] * 1000})


async def test_deep_canvases_and_drawings_are_refused_by_name_through_the_dispatch_chain(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(FILES)) as vg:
        shallow = await vg.ok("read_canvas", path="Shallow.canvas")
        assert shallow["nodes"][0]["text"] == "hello"
        for name in DEEP:
            refused = await vg.err("read_canvas", "validation_error", path=name)
            assert refused["details"] == {"path": name, "reason": "invalid_json"}, refused
            assert "nested deeper than" in refused["message"], refused
        assert (await vg.ok("read_excalidraw", path="Shallow.excalidraw.md", include_scene=True))["scene"]
        refused = await vg.err("read_excalidraw", "validation_error", path="Deep.excalidraw.md", include_scene=True)
        assert refused["details"]["reason"] == "too_deep", refused
        # the rest of the vault is indexed and read as before
        await vg.indexed()
        assert (await vg.ok("read_note", path="Home"))["content"] == "# Home\n"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_deep_canvases_are_structured_errors_over_http_with_jwt(
    make_vault: Callable[..., Path], mode: str
) -> None:
    token = hs(claims(sub="agent", scope="read:vault write:vault"))
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault(FILES), auth=auth) as (url, _), client(url, token, mode) as c:
        assert (await ok(c, "read_canvas", path="Shallow.canvas"))["nodes"][0]["text"] == "hello"
        for name in DEEP:  # Deep200 raised MCPError (unparsable answer), Deep260 was internal_error
            assert (await error(c, "read_canvas", path=name))["code"] == "validation_error"
        assert (await ok(c, "read_note", path="Home"))["content"] == "# Home\n"  # the session goes on


async def test_deep_canvases_are_structured_errors_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    env = {**os.environ, "VAULTGATE_INDEX__WATCH": "false"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    async with Client(params) as c:
        for name in DEEP:
            assert (await error(c, "read_canvas", path=name))["code"] == "validation_error"
        assert (await ok(c, "read_canvas", path="Shallow.canvas"))["nodes"][0]["text"] == "hello"
