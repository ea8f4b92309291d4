"""A capture whose inbox item a kill -9 cut off (row committed, item never written) points at no
block that is not there (U8 s75 #7): list_captures linked `[[Memory/Inbox#^cap-…]]`, a block the
inbox did not hold, and process_capture filed it with `inbox_marked: false` and an observation whose
`source` named that missing block. Now list_captures links the inbox note until the item is
written, and process_capture writes the item first, then marks it. The kill is a real SIGKILL of a
server process (tests/capture_killed.py) inside the second capture's listing."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started
from tests.killed import run_until_killed

LINK = re.compile(r"\[\[([^\]|#]+)#\^([\w-]+)")


def _dangling(vg: Harness, text: str) -> list[str]:
    """The block links in `text` whose note holds no such block."""
    out = []
    for note, block in LINK.findall(text):
        path = vg.root / f"{note}.md"
        if not path.is_file() or not re.search(rf"\^{re.escape(block)}\s*$", path.read_text("utf-8"), re.M):
            out.append(f"{note}#^{block}")
    return out


async def test_a_capture_cut_off_by_a_kill_links_no_missing_block(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    assert await run_until_killed("tests.capture_killed", str(root)) == -signal.SIGKILL
    assert "never listed" not in (root / "Memory/Inbox.md").read_text(encoding="utf-8")
    async with started(root) as vg:
        pending = await vg.ok("list_captures")
        listed, cut = pending["items"]
        assert cut["text"] == "committed, never listed", pending
        assert _dangling(vg, str(pending)) == [] and cut["block_link"] == "[[Memory/Inbox]]", pending
        assert listed["block_link"] == f"[[Memory/Inbox#^{listed['id']}]]"
        await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person"}])
        filed = await vg.ok("process_capture", capture_id=cut["id"], action="entity", target="Ann")
        assert filed["inbox_marked"] is True, filed
        inbox = vg.read("Memory/Inbox.md")
        assert re.search(rf"never listed .*\[status:: filed\].* \^{cut['id']}$", inbox, re.M), inbox
        [obs] = (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["observations"]
        assert obs["source"] == f"Memory/Inbox#^{cut['id']}", obs
        assert _dangling(vg, f"[[{obs['source']}]]") == []
        after = await vg.ok("list_captures", status="all")
        assert _dangling(vg, str(after)) == [], after
        assert [i["block_link"] for i in after["items"]] == [
            f"[[Memory/Inbox#^{listed['id']}]]",
            f"[[Memory/Inbox#^{cut['id']}]]",
        ]


async def test_a_discarded_cut_off_capture_is_written_and_marked(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    assert await run_until_killed("tests.capture_killed", str(root)) == -signal.SIGKILL
    async with started(root) as vg:
        cut = (await vg.ok("list_captures"))["items"][1]
        dropped = await vg.ok("process_capture", capture_id=cut["id"], action="discard")
        assert dropped["inbox_marked"] is True, dropped
        assert re.search(rf"\[status:: discarded\] \^{cut['id']}$", vg.read("Memory/Inbox.md"), re.M)
