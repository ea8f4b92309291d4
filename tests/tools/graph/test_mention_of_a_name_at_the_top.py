"""suggest_links suggests the note its link names. A bare name two notes share names the one at
the vault's top before the one in the linking note's folder (`linkpath.PathSet.resolve`, as the
link index, Dataview and Bases resolve it: `service.obsidian.link_order`). Found (s79 X4): with
'Idea.md' and 'Notes/Idea.md', a mention of 'Idea' in 'Notes/Src.md' was suggested as
'Notes/Idea.md' with the link `[[Idea]]`, and writing that link linked 'Idea.md' (get_outlinks,
Dataview's file.outlinks): the mention finder's pick (`mentions.closest`) took the same folder
first, without the note at the top."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "Idea.md": "at the top\n",
    "Notes/Idea.md": "beside\n",
    "Notes/Src.md": "# S\n\nthe Idea is good\n",
    "Notes/Plan.md": "beside\n",
    "Other/Plan.md": "elsewhere\n",
    "Notes/Uses.md": "a Plan here\n",  # no Plan at the top: the one beside it
}


async def test_the_suggested_link_names_the_suggested_note(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for source, mention in (("Notes/Src.md", "Idea"), ("Notes/Uses.md", "Plan")):
            [item] = (await vg.ok("suggest_links", path=source))["items"]
            assert item["link"] == f"[[{mention}]]", item
            text = vg.read(source)
            etag = (await vg.ok("read_note", path=source))["etag"]
            await vg.ok(
                "write_note",
                path=source,
                content=text.replace(mention, item["link"]),
                mode="overwrite",
                expected_etag=etag,
            )
            await vg.settled()
            [link] = (await vg.ok("get_outlinks", path=source))["items"]
            assert link["path"] == item["target"], (source, item, link)
        assert item["target"] == "Notes/Plan.md"
