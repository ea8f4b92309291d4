"""tests/reliability/test_hand_written_cursors.py over HTTP with the SDK client (both eras): a cursor
of `{"o": Infinity}` is validation_error 'invalid cursor' (before s78: internal_error in 26 tools)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error
from tests.reliability.test_hand_written_cursors import hand_written


async def test_an_infinite_offset_cursor_is_an_invalid_cursor_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Welcome.md": "# Welcome\n\n#start here\n"})
    async with e2e(vault) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        for tool, args in (("list_tags", {}), ("search_text", {"query": "welcome"})):
            err = await error(c, tool, args, cursor=hand_written('{"o":Infinity}'))
            assert err["code"] == "validation_error" and err["details"]["field"] == "cursor", (tool, err)
