"""A canvas of many file nodes is indexed in one pass over its text (found by A1, session 87,
attacking a real server): the line of each node's link was found by searching the whole text
once per node and counting its line breaks from the start, so a canvas of 20,000 file nodes
(1 MB) held the indexer for 28 s, and a write's read-after-write wait ran out at 30 s
(index_unavailable) behind it. Counted, not timed: how often the text is scanned from its start."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import canvas_facts as cf
from tests.conftest import started

NODES = 3000


def _board(n: int) -> str:
    nodes = [
        {"id": f"n{i}", "type": "file", "x": i, "y": 0, "width": 10, "height": 10, "file": f"N{i % 10}.md"}
        for i in range(n)
    ]
    return json.dumps({"nodes": nodes, "edges": []}, indent="\t")


class _CountingRe:
    """`re` as canvas_facts sees it, counting the calls that scan a text from its start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scans = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    def _count(self, string: object) -> None:
        if isinstance(string, str) and len(string) == len(self.text):
            self.scans += 1

    def search(self, pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
        self._count(string)
        return re.search(pattern, string, flags)

    def finditer(self, pattern: str, string: str, flags: int = 0) -> Any:
        self._count(string)
        return re.finditer(pattern, string, flags)


async def test_a_canvas_of_many_file_nodes_is_indexed_in_one_pass(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _board(NODES)
    counting = _CountingRe(text)
    monkeypatch.setattr(cf, "re", counting)
    files: dict[str, str] = {f"N{i}.md": f"# N{i}\n" for i in range(10)}
    files["Board.canvas"] = text
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("get_backlinks", path="N3", limit=500)
        items = out["items"]
        assert len(items) == NODES // 10
        assert {(i["path"], i["text"].strip()) for i in items} == {("Board.canvas", '"file": "N3.md"')}
    assert counting.scans <= 2, counting.scans  # one per linked node (3,000) before


def _reference_line(text: str, node_id: str, key: str) -> int:
    """The rule as it was written before (a search of the whole text per node), kept as the reference."""
    found = re.search(r'"id"\s*:\s*' + re.escape(json.dumps(node_id, ensure_ascii=False)), text)
    if found is None:
        found = re.search(r'"id"\s*:\s*' + re.escape(json.dumps(node_id)), text)
    if found is None:
        return 0
    start = text.rfind("{", 0, found.start())
    field = re.compile(r'"' + key + r'"\s*:').search(text, max(start, 0))
    pos = field.start() if field is not None else found.start()
    return text.count("\n", 0, pos)


@pytest.mark.parametrize("seed", range(8))
def test_the_lines_are_those_the_whole_text_search_found(seed: int) -> None:
    rng = random.Random(seed)
    ids = ["a", "b", "é", "x y", 'q"t', "ü/v", "", "a"]  # a repeated id: the first node's line, as before
    nodes: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 30)):
        kind = rng.choice(["file", "text", "group"])
        node: dict[str, Any] = {"id": rng.choice(ids) + str(rng.randint(0, 3)), "type": kind}
        if kind == "file":
            node["file"] = f"F{i}.md"
        elif kind == "text":
            node["text"] = f"see [[T{i}]]"
        else:
            node["background"] = f"img{i}.png"
        if rng.random() < 0.2:
            node["id"] = 7  # not a string: looked up as ""
        items = list(node.items())
        rng.shuffle(items)
        nodes.append(dict(items))
    indent = rng.choice([None, "\t", 2])
    text = json.dumps({"nodes": nodes, "edges": []}, indent=indent, ensure_ascii=rng.random() < 0.5)
    facts = cf.canvas_facts("B.canvas", text)
    want = []
    for node in nodes:
        ident = node["id"] if isinstance(node["id"], str) else ""
        key = {"file": "file", "text": "text", "group": "background"}[node["type"]]
        want.append(_reference_line(text, ident, key))
    assert [link.line for link in facts.links] == want
