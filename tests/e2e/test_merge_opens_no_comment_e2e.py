"""tests/tools/memory/test_merge_opens_no_comment.py over HTTP with the SDK client (both eras):
merge_observations of an entity whose note holds a line with one `%%` is `validation_error`
(`comment_marker`, its block id listed) and the kept note is unchanged, its relations still read
(before A4 s95 the line was copied and hid the rest of the kept note)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.memory.test_merge_opens_no_comment import ANN, BOB, lees


async def test_a_merge_carrying_an_open_comment_is_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    files = {"Memory/Ann Lee.md": ANN, "Memory/Ann Lees.md": lees("- Lives in Oslo %% ^m-x"), "Memory/Bob.md": BOB}
    async with e2e(make_vault(files)) as (url, h), Client(url, mode=mode) as c:
        refused = await error(c, "merge_observations", entityName="Ann Lee", mergedName="Ann Lees")
        assert (refused["code"], refused["details"]["reason"], refused["details"]["block_ids"]) == (
            "validation_error",
            "comment_marker",
            ["m-x"],
        )
        assert h.read("Memory/Ann Lee.md") == ANN
        opened = await ok(c, "open_nodes", names=["Ann Lee"])
        assert opened["relations"] == [{"from": "Ann Lee", "to": "Bob", "relationType": "knows"}]
