"""list_tags over tags with a slash at an end or two in a row (`#/x`, `#a//b`, as the index takes
them): no tag named '' or 'a/' is made up above them. Before, `#/x` put a row `{"tag": "", "count":
1, "direct": 0}` in the listing, and `#a//b` a parent 'a/' that no note has."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_no_empty_or_slash_ended_ancestor_tags(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Tags.md": "# Tags\n\n#/x #a//b #p/q\n"})
    async with started(root) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tags")
        tags = {item["tag"]: item for item in listed["items"]}
        assert "" not in tags and "a/" not in tags
        assert {"/x", "a//b", "p", "p/q"} <= set(tags)
        assert tags["p/q"]["parent"] == "p" and tags["p"]["count"] == 1
        assert listed["total"] == len(listed["items"])
