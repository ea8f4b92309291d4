"""The plane's notes (the digest, topic maps, summaries: `digest.link_to`) link a note whose path
holds `|`, `#`, `^`, `[` or `]` — legal in a Linux file name made by hand, never in one Obsidian
makes — by a Markdown link with its path percent-encoded, as for `%%` (39684845). As a wikilink,
`[[Odd|pipe|Odd|pipe]]` named the note `Odd` shown as `pipe|Odd|pipe`, `[[C#1|C#1]]` the heading
`1` of a note `C`, and `[[Close]] here]]` ended early: each named no note or the wrong one, so
the kept digest's link to it resolved to nothing. Checked through the index's own link
resolution: get_outlinks of the kept digest resolves each link to its note, and get_backlinks of
each lists the digest. A path holding `#` has no link the index (or Obsidian) resolves to it (a
Markdown link's target is decoded, then cut at `#`): it is written as code, not linked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

LINKED = ("Odd|pipe.md", "Close]] here.md", "Caret ^a.md", "Open [[ it.md")
ODD = (*LINKED, "Folder #1/C#1.md")


async def test_the_kept_digest_links_odd_paths_so_that_they_resolve(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**{p: "Some text of this note.\n" for p in ODD}, "Plain.md": "Plain first sentence here.\n"})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        await vg.ok("apply_finding", finding_id=digest["id"])
        [kept] = (root / "Digests").iterdir()
        rel = f"Digests/{kept.name}"
        await vg.indexed()
        text = kept.read_text(encoding="utf-8")
        assert "- [Odd|pipe](Odd%7Cpipe.md) (new)" in text, text
        assert "- [Close&#93;&#93; here](Close%5D%5D%20here.md) (new)" in text, text
        assert "[[Plain|Plain]]" in text, text  # a plain path keeps its wikilink
        assert "- ` Folder #1/C#1.md ` (new)" in text, text  # no link names it: code, no wrong link, no tag
        links = (await vg.ok("get_outlinks", path=rel))["items"]
        assert sorted((i["path"], i["resolved"]) for i in links) == sorted((p, True) for p in (*LINKED, "Plain.md"))
        for path in LINKED[1:]:  # the '|' path too is an address since 88499356; checked here: the others
            found = await vg.ok("get_backlinks", path=path)
            assert rel in [i["path"] for i in found["items"]], (path, found, text)
        assert (await vg.ok("get_backlinks", path="Folder #1/C#1.md"))["items"] == []
        assert (await vg.ok("list_tags"))["items"] == [], text  # `#1/C` read as a tag: none
