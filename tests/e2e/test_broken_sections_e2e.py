"""find_broken_links over real HTTP with the SDK client, in both protocol eras: a link into a
heading renamed since, or into a block id that is gone, is listed with its reason and the target's
closest headings or block ids; `subpaths: false` lists links to no note only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e

FILES = {
    "Plan.md": "# Plan\n\n## Step 1: Setup\ntext ^setup-1\n\n## Goals\n",
    "Links.md": "[[Plan#Step 1 Setup]] [[Plan#^setup-1]] [[Plan#Step One]]\n![[Plan#^setup1]] [[Nowhere#Goals]]\n",
}


async def test_links_into_missing_headings_and_blocks_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("find_broken_links", {})
            assert not result.is_error and result.structured_content is not None
            items = result.structured_content["items"]
            assert [(i["line"], i["reason"], i["subpath"], i.get("target_path")) for i in items] == [
                (1, "no_heading", "Step One", "Plan.md"),
                (2, "no_block", "^setup1", "Plan.md"),  # on one line, in the order written
                (2, "no_note", "Goals", None),
            ]
            assert items[0]["suggestions"][0] == "Step 1 Setup" and items[1]["suggestions"] == ["^setup-1"]
            only = await client.call_tool("find_broken_links", {"subpaths": False})
            assert only.structured_content is not None
            assert [i["reason"] for i in only.structured_content["items"]] == ["no_note"]
            bad = await client.call_tool("find_broken_links", {"subpaths": "sometimes"})
            assert bad.is_error
