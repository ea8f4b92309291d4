"""A tool answer holding a lone surrogate read from a vault file is answered, the surrogate as
U+FFFD (service/dispatch/handler.py `_scrubbed`). JSON escapes like "\\ud800" (JavaScript writes
half an emoji so) and YAML's give Python a string JSON cannot encode: pydantic failed to
serialise the answer and list_bookmarks, query_base answered internal_error (U13 s79 found the
class; its sources in canvases, bookmarks renames and vault paths were fixed in 40826967).
Through the dispatch chain and end to end over HTTP in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, started
from tests.e2e.calls import ok as _ok

FILES = {
    "a.md": "---\nstatus: active\n---\n# A\n",
    "v.base": 'views:\n  - type: table\n    name: "T\\ud800x"\n    order:\n      - file.name\n',
    ".obsidian/bookmarks.json": '{"items":[{"type":"file","path":"a.md","title":"B\\ud800 \\ud83d\\ude00"}]}',
}


async def test_an_answer_holding_a_lone_surrogate_is_answered(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        base = await vg.ok("query_base", path="v.base")
        assert base["view"] == "T\ufffdx" and "a.md" in [r["path"] for r in base["rows"]]
        marks = await vg.ok("list_bookmarks")
        assert [i["title"] for i in marks["items"]] == ["B\ufffd \U0001f600"]  # a pair stays its character


async def test_it_is_answered_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        assert (await _ok(c, "query_base", path="v.base"))["view"] == "T\ufffdx"
        assert (await _ok(c, "list_bookmarks"))["items"][0]["title"] == "B\ufffd \U0001f600"
