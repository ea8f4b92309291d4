"""A link's target, subpath and alias are echoed bounded by get_outlinks, get_backlinks and
find_broken_links: a note holding `[[T#` and 20,000 characters made a 20,000-character item (its
`subpath`), `[[T|` and 20,000 characters one with a 20,000-character `alias`, and `[[` and 20,000
characters (an unresolved name) a `target`, `text`, `path` and `title` of 20,000 characters each,
repeated for every such link on the page (40 of them: an overflow error). Now each of those texts
longer than `LINK_ECHO_CHARS` (service.errors' ECHO_DETAIL_CHARS) keeps its first and last half of
it, '…(N characters cut)…' between (as service.errors cuts an echoed argument), `text` at most
`LINE_TEXT_CHARS` the same way, and a short one stays whole."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from service.errors import ECHO_DETAIL_CHARS
from service.tools.graph_common import LINE_WINDOW
from tests.conftest import started

LINK_ECHO_CHARS = ECHO_DETAIL_CHARS  # as service.tools.graph_common sets them
LINE_TEXT_CHARS = 2 * LINE_WINDOW + LINK_ECHO_CHARS
LONG = 20_000
HALF = LINK_ECHO_CHARS // 2
REPEAT = 40  # hostile links on the page
BODY = "\n\n".join(
    [
        "# H",
        *("[[T#" + "x" * LONG + "]]" for _ in range(REPEAT)),
        "[[T#^" + "y" * LONG + "]]",
        "[[" + "z" * LONG + "]]",
        "[[T|" + "a" * LONG + "]]",
        "[[T#Real]] and [[T#Gone]]",
    ]
)
CUT = f"…({LONG - 2 * HALF:,} characters cut)…"
SLACK = 40  # the cut marker


def _strings(item: dict[str, object]) -> list[str]:
    return [v for v in item.values() if isinstance(v, str)]


def _bounded(items: list[dict[str, object]]) -> None:
    for item in items:
        assert all(len(s) <= LINE_TEXT_CHARS + SLACK for s in _strings(item)), {
            k: len(v) for k, v in item.items() if isinstance(v, str)
        }
        for key in ("target", "subpath", "alias", "path", "title"):
            value = item.get(key)
            assert value is None or len(value) <= LINK_ECHO_CHARS + SLACK, (key, len(value))


async def test_long_link_texts_are_echoed_cut(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"T.md": "# T\n\n## Real\n", "H.md": BODY})
    async with started(root) as vg:
        await vg.indexed()
        out = await vg.ok("get_outlinks", path="H", limit=1000)
        items = out["items"]
        assert len(items) == REPEAT + 5
        _bounded(items)
        assert len(json.dumps(out)) < len(items) * (LINE_TEXT_CHARS + 4 * LINK_ECHO_CHARS)
        first = items[0]
        assert first["subpath"] == "x" * HALF + CUT + "x" * HALF and first["line"] == 3
        block = items[REPEAT]
        assert block["subpath"] == "^" + "y" * (HALF - 1) + f"…({LONG + 1 - 2 * HALF:,} characters cut)…" + "y" * HALF
        unresolved = items[REPEAT + 1]
        assert unresolved["resolved"] is False
        assert unresolved["target"] == "z" * HALF + CUT + "z" * HALF
        assert unresolved["path"].startswith("z" * HALF) and unresolved["path"].endswith("z.md")
        assert unresolved["obsidian_url"].startswith("obsidian://open") and "file=H" in unresolved["obsidian_url"]
        assert unresolved["text"].startswith("[[" + "z" * 100) and "characters cut)…" in unresolved["text"]
        assert items[REPEAT + 2]["alias"] == "a" * HALF + CUT + "a" * HALF
        assert [(i["subpath"], i["text"]) for i in items[-2:]] == [
            ("Real", "[[T#Real]] and [[T#Gone]]"),
            ("Gone", "[[T#Real]] and [[T#Gone]]"),
        ]

        back = await vg.ok("get_backlinks", path="T", limit=1000)
        _bounded(back["items"])
        assert back["items"][0]["subpath"] == first["subpath"]

        broken = await vg.ok("find_broken_links", limit=1000)
        found = broken["items"]
        assert len(found) == REPEAT + 3  # the x-headings, the ^y block, the z note, #Gone
        _bounded(found)
        assert found[0]["subpath"] == first["subpath"] and found[0]["reason"] == "no_heading"
        assert {f["reason"] for f in found} == {"no_heading", "no_block", "no_note"}
        assert [f["target"] for f in found if f["reason"] == "no_note"] == [unresolved["target"]]
        assert found[-1]["subpath"] == "Gone"
        assert len(json.dumps(broken)) < len(found) * (LINE_TEXT_CHARS + 4 * LINK_ECHO_CHARS)
