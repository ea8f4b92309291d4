"""A link item's `text` is the part of a long linking line around that link (review R2 s64
F10): every link of a one-line flow list (`related: ["[[a]]", "[[b]]", ...]`, indexed since
01633d9) carried the whole line, so N links x the line's length per page, and one such note made
the vault-wide find_broken_links answer `overflow`. Now a line longer than the link plus
`LINE_WINDOW` characters either side is cut to that window, '…' where cut; a short line is
whole. Through the dispatch chain, and over HTTP with the SDK client; no timings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.tools.graph_common import LINE_WINDOW
from tests.conftest import e2e, started
from tests.e2e.calls import ok

N = 3000
FLOW = "r: [" + ", ".join(f'"[[Gone{i}]]"' for i in range(N)) + "]"  # ~45 KB on one line
PROSE = "word " * 200 + "[[Hub]] in the middle " + "word " * 200  # ~2 KB of body line
VAULT = {"Hub.md": "# Hub\n", "Big.md": f"---\n{FLOW}\n---\n# Big\n{PROSE}\nshort [[Hub]] line\n"}


def _windowed(text: str, target: str) -> bool:
    return f"[[{target}]]" in text and len(text) <= 2 * LINE_WINDOW + len(target) + 6


async def test_link_items_show_the_window_around_their_link(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await vg.ok("get_outlinks", path="Big", limit=200)
        items = out["items"]
        assert [i["target"] for i in items[:3]] == ["Gone0", "Gone1", "Gone2"]
        for item in items:
            assert item["property"] == "r" or item["line"] in (6, 7)
            assert _windowed(item["text"], item["target"]), item
        assert items[0]["text"].startswith('r: ["[[Gone0]]"') and items[0]["text"].endswith("…")
        assert items[100]["text"].startswith("…") and items[100]["text"].endswith("…")
        back = await vg.ok("get_backlinks", path="Hub")
        texts = [i["text"] for i in back["items"]]
        assert texts[0].startswith("…word") and "[[Hub]] in the middle" in texts[0] and texts[0].endswith("…")
        assert texts[1] == "short [[Hub]] line"  # a short line is whole
        broken = await vg.ok("find_broken_links")  # the vault-wide page no longer overflows
        assert len(broken["items"]) == 50 and all(_windowed(i["text"], i["target"]) for i in broken["items"])


async def test_over_http_a_long_linking_line_is_cut_around_the_link(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, vg), Client(url) as client:
        await vg.indexed()
        broken = await ok(client, "find_broken_links", {"limit": 50})
        assert len(broken["items"]) == 50 and all(_windowed(i["text"], i["target"]) for i in broken["items"])
