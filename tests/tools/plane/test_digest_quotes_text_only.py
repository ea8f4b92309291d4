"""The digest quotes a changed note's first sentence as text only (A4 s84 item 2): it reads as in
Obsidian, but the kept digest gains no tag, link, embed, Dataview field or block from it.

Before, the sentence was quoted as written (s83 A3 "Left"): `#launch` in it became a tag of the
kept digest (list_tags, search_tags, Dataview's file.tags), `[[Roadmap]]` and `![[Big]]` links
and a transclusion of the digest's (its outlinks, Roadmap's backlinks), `[[Not yet]]` a broken
link of the digest's, and `Status:: draft` a Dataview field of the digest. Now a link is the text
it shows (`Roadmap`, its alias, `Plan > Goals`), `#` is `&#35;`, `::` is `:&#58;`, a trailing
`^block` id is dropped; inline code stays as written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTES = {
    "Work/Kickoff.md": "# Kickoff\n\nKickoff of #launch with [[Roadmap]] and ![[Big]] went well.\n",
    "Work/Fields.md": "Status:: draft for [[Plan#Goals|the goals]] and [due:: today] ^blk1\n",
    "Work/Later.md": "A link to [[Not yet]] and [the map](Roadmap.md), `#code` stays!\n",
    "Work/Roadmap.md": "# Roadmap\n\nThe plan for the year ahead.\n",
    "Work/Big.md": "# Big\n\nA long note someone embeds.\n",
    "Work/Plan.md": "# Plan\n\n## Goals\nEverything we want done.\n",
}
LINES = [
    "- [[Work/Kickoff|Kickoff]] (new): Kickoff of &#35;launch with Roadmap and Big went well.",
    "- [[Work/Fields|Fields]] (new): Status:&#58; draft for the goals and [due:&#58; today]",
    "- [[Work/Later|Later]] (new): A link to Not yet and the map, `#code` stays!",
]


async def test_a_quoted_sentence_gives_the_digest_no_tag_link_or_field(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        await vg.ok("apply_finding", finding_id=digest["id"])
        [kept] = (root / "Digests").iterdir()
        rel = f"Digests/{kept.name}"
        await vg.indexed()
        text = kept.read_text(encoding="utf-8")
        read = await vg.ok("read_note", path=rel)
        assert read["tags"] == [], read["tags"]
        tags = {t["tag"]: t["count"] for t in (await vg.ok("list_tags"))["items"]}
        assert tags == {"launch": 1}, tags  # Kickoff's own, not the digest's
        out = (await vg.ok("get_outlinks", path=rel))["items"]
        assert sorted(o["path"] for o in out) == sorted(NOTES) and all(o["resolved"] for o in out), out
        assert not [o for o in out if o["embed"]], out
        broken = (await vg.ok("find_broken_links"))["items"]
        assert [b for b in broken if b.get("source") == rel or rel in str(b)] == [], broken
        fields = (await vg.ok("eval_dataview_field", path=rel))["fields"]
        assert not {"status", "Status", "due"} & set(fields), fields  # Fields.md's, not the digest's
        own = (await vg.ok("eval_dataview_field", path="Work/Fields"))["fields"]
        assert "due" in own, own  # what the digest would have taken
        for line in LINES:
            assert line in text.splitlines(), (line, text)


async def test_a_name_gives_the_digest_no_link_field_or_block(make_vault: Callable[..., Path]) -> None:
    """A folder's name in its heading and a memory entity's name (M3 s85): `[[Foo]]`, `x:: y` and
    `^blk` in them made a link (to a missing note), a Dataview field and a block of the kept
    digest's. Now `[`, `]`, `^` are HTML entities and `::` is `:&#58;` (`quoting.inert`)."""
    root = make_vault(
        {"Home.md": "# Home\n\nThe home note of this vault.\n", "Proj [[Foo]] x:: y/N.md": "# N\n\nA note.\n"}
    )
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        for name in ("Deadline:: Friday", "Fan of [[Foo]] band", "Ann ^blk"):
            await vg.ok("create_entities", entities=[{"name": name, "entityType": "t", "observations": ["a fact"]}])
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        await vg.ok("apply_finding", finding_id=digest["id"])
        [kept] = (root / "Digests").iterdir()
        rel = f"Digests/{kept.name}"
        await vg.indexed()
        out = (await vg.ok("get_outlinks", path=rel))["items"]
        assert sorted(o["path"] for o in out) == ["Home.md", "Proj [[Foo]] x:: y/N.md"], out
        fields = (await vg.ok("eval_dataview_field", path=rel))["fields"]
        assert not {"deadline", "Deadline", "x"} & set(fields), fields
        lines = kept.read_text(encoding="utf-8").splitlines()
        assert "- Ann &#94;blk" in lines and "## Proj &#91;&#91;Foo&#93;&#93; x:&#58; y (1)" in lines, lines
