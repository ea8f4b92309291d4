"""What the Local REST API answers, through the whole dispatch chain against the stand-in
(tests/tools/bridges/standin.py): `timeout_s` bounds the whole request, a plugin that trickles
its answer included, and a command list in another shape is `plugin_incompatible` rather than
an empty list (docs/bridges.md, "Errors")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the autouse fixture that sets the API key


class Trickling(Obsidian):
    """Answers GET /commands/ one byte every 0.3 s (about 6 s in all)."""

    async def list_commands(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused

        async def drip() -> AsyncIterator[bytes]:
            yield b'{"commands": ['
            for _ in range(20):
                await asyncio.sleep(0.3)
                yield b" "
            yield b"]}"

        return StreamingResponse(drip(), media_type="application/json")


@pytest.mark.covers("list_commands", "failure")
async def test_an_answer_that_trickles_past_timeout_s_is_plugin_unreachable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    # each read comes well within timeout_s; the whole answer does not
    async with bridged(make_vault, tmp_path, Trickling(), timeout_s=1.0) as (vg, _):
        err = await vg.err("list_commands", "plugin_unreachable")
        assert err["details"]["reason"] == "timeout" and err["retryable"] is True


@pytest.mark.parametrize(
    "commands",
    [
        [{"id": 5}, "x", None],
        [{"id": "editor:save-file", "name": "Save"}, {"name": "no id"}],
        [{"id": "editor:save-file", "name": ["Save"]}],
    ],
)
async def test_a_command_list_in_another_shape_is_plugin_incompatible(
    make_vault: Callable[..., Path], tmp_path: Path, commands: list[Any]
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(commands=commands)) as (vg, _):
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "bad_answer" and err["details"]["route"] == "/commands/"


async def test_a_command_without_a_name_is_listed_under_its_id(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(commands=[{"id": "graph:open"}])) as (vg, _):
        out = await vg.ok("list_commands")
        assert out["items"] == [{"id": "graph:open", "name": "graph:open", "safe": False}]


DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_ANSWERS = {
    "answer": (200, b'{"path": "A.md", "content": "x", "frontmatter": ' + DEEP + b"}"),
    "frontmatter": (
        200,
        b'{"path": "A.md", "content": "x", "tags": [], "frontmatter": {"a": ' + b"[" * 900 + b"]" * 900 + b"}}",
    ),
    "error body": (500, DEEP),
}


class Nested(Obsidian):
    """Answers GET /active/ with one of `DEEP_ANSWERS`."""

    def __init__(self, which: str) -> None:
        super().__init__()
        self.which = which

    async def get_active(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        status, body = DEEP_ANSWERS[self.which]
        return Response(body, status_code=status, media_type="application/vnd.olrapi.note+json")


@pytest.mark.parametrize("which", list(DEEP_ANSWERS))
async def test_a_deeply_nested_answer_is_refused_as_a_bad_answer(
    make_vault: Callable[..., Path], tmp_path: Path, which: str
) -> None:
    """A plugin answer nested 100,000 levels deep (json.loads' RecursionError), or 900 levels in its
    frontmatter (which parsed, then failed when the tool's answer was serialized), was
    internal_error (acceptance pass s63 T1 #3)."""
    async with bridged(make_vault, tmp_path, Nested(which)) as (vg, _):
        result = await vg.call("get_active_note")
        assert result.is_error and result.structured is not None
        error = result.structured["error"]
        if which == "error body":  # the plugin failed: its body's start is the message
            assert error["code"] != "internal_error" and error["message"].count("[") <= 200
        else:
            assert error["code"] == "plugin_incompatible" and error["details"]["reason"] == "bad_answer"
