"""list_tags' `total` and index_status' `tags` count different things, and each says which: on the
Obsidian Hub vault list_tags answered 56 and index_status 55 without a word why (list_tags lists
`tools`, the parent of `tools/x` that no note writes itself, as Obsidian's tag pane does;
index_status counts the tags notes write). Through the dispatcher: the figures, and the
descriptions `tools/list` gives for them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

VAULT = {
    "A.md": "# A\n\n#tools/x #Plain\n",
    "B.md": "---\ntags: [plain, work/a/b]\n---\n# B\n",
}


async def _output_schema(vg: Any, name: str) -> str:
    listed = await vg.app.dispatcher.on_list_tools(None, None)
    [tool] = [t for t in listed.tools if t.name == name]
    return json.dumps(tool.output_schema)


async def test_each_tag_figure_says_what_it_counts(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tags")
        tags = {item["tag"].lower(): item for item in listed["items"]}
        assert set(tags) == {"tools", "tools/x", "plain", "work", "work/a", "work/a/b"}
        assert listed["total"] == 6 and tags["tools"]["direct"] == 0 and tags["plain"]["count"] == 2
        status = await vg.ok("index_status")
        assert status["tags"] == 3  # tools/x, plain (either case), work/a/b
        written = await _output_schema(vg, "index_status")
        assert "Distinct tags written in notes" in written and "`list_tags`' `total`" in written
        total = await _output_schema(vg, "list_tags")
        assert "including the parents of nested tags" in total and "`index_status`' `tags`" in total
