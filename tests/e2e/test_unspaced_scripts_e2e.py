"""Chinese, Japanese, Korean and Thai words found inside a sentence, end to end: a real uvicorn
server with the SDK's Streamable HTTP client in both protocol eras, and the real CLI over stdio
(its fast path), for search_text, search_notes and search_vault (service/retrieval/unspaced.py);
a run of several words without spaces finds the note holding them apart (query.py `SEVERAL`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok

NOTES = {
    "学习.md": "# 学习笔记\n\n今天我学习了机器学习的基础知识。\n",
    "会議.md": "# 日本語\n\n東京で会議がありました。\n",
    "회의.md": "# 한국어\n\n오늘 회의에서 프로젝트 계획을 논의했습니다.\n",
    "Thai.md": "# Thai\n\nวันนี้เราประชุมเรื่องโครงการ\n",
    "English.md": "# English\n\nThe garden plan.\n",
}
QUERIES = {"机器学习": "学习.md", "東京": "会議.md", "회의": "회의.md", "ประชุม": "Thai.md"}


async def _all_found(call: Callable[..., Any]) -> None:
    for query, path in QUERIES.items():
        out = await call("search_text", query=query)
        assert [i["path"] for i in out["items"]] == [path], (query, out)
        item = out["items"][0]
        assert [item["snippet"][s:e] for s, e in item["highlights"]] == [query], item
        assert out["query"] == f'"{query}"'
        notes = await call("search_notes", query=query)
        assert notes["items"] and notes["items"][0]["path"] == path, (query, notes)
        vault = await call("search_vault", query=query)
        assert vault["items"] and vault["items"][0]["path"] == path, (query, vault)
    # several words typed without a space: the note holding them apart follows as a partial match
    out = await call("search_text", query="机器学习基础")
    assert out["match"] == "any" and [i["path"] for i in out["items"]][:1] == ["学习.md"], out


async def test_unspaced_script_words_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(NOTES)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await _all_found(lambda tool, **args: _ok(c, tool, **args))


async def test_unspaced_script_words_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    async with Client(params, mode="auto") as client:

        async def call(tool: str, **args: Any) -> Any:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.structured_content
            return result.structured_content

        await call("reindex", mode="sync")
        await _all_found(call)
