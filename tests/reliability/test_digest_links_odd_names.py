"""The plane's notes (the digest, topic maps, summaries: `digest.link_to`) link a note whose path
holds `|`, `#`, `^`, `[` or `]` — legal in a Linux file name made by hand, never in one Obsidian
makes — by a Markdown link with its path percent-encoded, as for `%%` (39684845). As a wikilink,
`[[Odd|pipe|Odd|pipe]]` named the note `Odd` shown as `pipe|Odd|pipe`, `[[C#1|C#1]]` the heading
`1` of a note `C`, and `[[Close]] here]]` ended early: each named no note or the wrong one, so
the kept digest's link to it resolved to nothing. Checked through the index's own link
resolution: get_outlinks of the kept digest resolves each link to its note, and get_backlinks of
each lists the digest. A path holding `#` was written as code (s82), as no link named it; since
the index cuts a Markdown link's href at its first `#` as written and only then decodes it
(dab89ba6), `[…](Folder%20%231/C%231.md)` names `Folder #1/C#1.md`, so the digest and a topic map
link it so (s83), its shown text writing `#` as `&#35;` (no `#tag`); so do a folder's heading
(`## Proj #work` made the tag `work`) and a hand-made entity's name."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

LINKED = ("Odd|pipe.md", "Close]] here.md", "Caret ^a.md", "Open [[ it.md", "Folder #1/C#1.md", "Proj #work/N.md")


async def test_the_kept_digest_links_odd_paths_so_that_they_resolve(make_vault: Callable[..., Path]) -> None:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entity = {"Memory/Team.md": f'---\nname: "Team #alpha"\nupdated: {now}\n---\n# Team\n'}  # a hand-made name
    root = make_vault({**{p: "Some text of this note.\n" for p in LINKED}, "Plain.md": "Plain text here.\n", **entity})
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
        assert "- [C&#35;1](Folder%20%231/C%231.md) (new)" in text, text  # '#' as %23, its text no tag
        assert "## Proj &#35;work (1)" in text and "- Team &#35;alpha" in text, text  # a heading, a name: no tag
        links = (await vg.ok("get_outlinks", path=rel))["items"]
        assert sorted((i["path"], i["resolved"]) for i in links) == sorted((p, True) for p in (*LINKED, "Plain.md"))
        for path in LINKED[1:]:  # the '|' path too is an address since 88499356; checked here: the others
            found = await vg.ok("get_backlinks", path=path)
            assert rel in [i["path"] for i in found["items"]], (path, found, text)
        assert (await vg.ok("find_broken_links"))["items"] == [], text
        assert (await vg.ok("list_tags"))["items"] == [], text  # `#1/C`, `#work`, `#alpha` read as tags: none


async def test_a_topic_map_links_a_path_holding_a_hash_so_that_it_resolves(make_vault: Callable[..., Path]) -> None:
    """The map's members in a folder named with `#` were written as code, so the kept map linked
    none of them (s82); now each is a Markdown link with `#` as `%23`, which names its note."""
    ring = {f"Folder #1/C#{i}.md": f"# C {i}\n\n[[C#{(i + 1) % 6}]] [[C#{(i + 2) % 6}]]\n" for i in range(6)}
    ring = {p: t.replace("[[C#", "[C](C%23").replace("]]", ".md)") for p, t in ring.items()}  # a wikilink cuts at '#'
    root = make_vault({**ring, "Other/A.md": "# A\n\n[[B]]\n", "Other/B.md": "# B\n\n[[A]]\n"})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["topics"])
        [found] = (await vg.ok("list_findings", kind="topic_map"))["items"]
        await vg.ok("apply_finding", finding_id=found["id"])
        [kept] = (root / "Maps").iterdir()
        rel = f"Maps/{kept.name}"
        await vg.indexed()
        text = kept.read_text(encoding="utf-8")
        assert "`" not in text and "- [Folder &#35;1/C&#35;0](Folder%20%231/C%230.md)" in text, text
        links = (await vg.ok("get_outlinks", path=rel))["items"]
        assert {(i["path"], i["resolved"]) for i in links} == {(p, True) for p in ring}, (links, text)
        for path in ring:
            found = await vg.ok("get_backlinks", path=path)
            assert rel in [i["path"] for i in found["items"]], (path, found, text)
        assert (await vg.ok("find_broken_links"))["items"] == [], text
        assert (await vg.ok("list_tags"))["items"] == [], text
