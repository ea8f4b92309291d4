"""tests/tools/memory/test_capture_cut_off.py over HTTP with the SDK client (both eras): after a
server process was SIGKILLed inside a capture's inbox listing, list_captures links no block the
inbox lacks, and process_capture writes the cut-off item, files it and marks it."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.killed import run_until_killed


async def test_a_capture_cut_off_by_a_kill_is_written_before_it_is_filed_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault()
    assert await run_until_killed("tests.capture_killed", str(root)) == -signal.SIGKILL
    async with e2e(root) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        cut = (await ok(c, "list_captures"))["items"][1]
        assert cut["text"] == "committed, never listed" and cut["block_link"] == "[[Memory/Inbox]]", cut
        filed = await ok(c, "process_capture", capture_id=cut["id"], action="new_note", target="Ideas/Cut.md")
        assert filed["inbox_marked"] is True, filed
        inbox = h.read("Memory/Inbox.md")
        assert re.search(rf"never listed .*\[status:: filed\].* \^{cut['id']}$", inbox, re.M), inbox
        assert f"[[Memory/Inbox#^{cut['id']}|" in h.read("Ideas/Cut.md")  # its link back: a block there now
