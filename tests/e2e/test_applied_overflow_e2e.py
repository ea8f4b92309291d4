"""A completed change too big to echo reaches the SDK client over Streamable HTTP: set_properties
with 550 keys (its full report ~60 KB, over a `max_response_bytes` of 16 KiB) answers a success
with the path and the new etag, which guards the next edit; a read of the same note is
`overflow`. (It was 12,000 keys against the default 1 MiB; a frontmatter that large is now
refused by property edits before anything is written: `frontmatter_size`.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

NOTE = {"Welcome.md": "---\ntitle: Hi\n---\n# Welcome\n\nText.\n"}


async def test_a_completed_set_properties_over_the_limit_reaches_the_client(make_vault: Callable[..., Path]) -> None:
    big = {f"k{i}": "v" * 100 for i in range(550)}
    async with (
        e2e(make_vault(NOTE), throttle={"enabled": False}, governor={"max_response_bytes": 16384}) as (url, harness),
        Client(url, mode="legacy") as client,
    ):
        result = await client.call_tool("set_properties", {"path": "Welcome.md", "properties": big})
        assert not result.is_error and result.structured_content is not None
        out = result.structured_content
        assert out["path"] == "Welcome.md" and out["changed"] is True and out["etag"]
        assert 0 < len(out["properties"]) < len(big)
        assert "completed" in "".join(getattr(c, "text", "") for c in result.content)
        assert "k549: " in harness.read("Welcome.md")  # the whole change was written
        assert (await error(client, "get_properties", {"path": "Welcome.md"}))["code"] == "overflow"
        args = {"path": "Welcome.md", "key": "title", "expected_etag": out["etag"]}
        assert (await ok(client, "delete_property", args))["changed"] is True
