"""A heading is found as Obsidian matches a link's heading (punctuation read as spaces) when
none has the text as given. Obsidian leaves out of a heading link the characters a link cannot
hold (`## Step 1: Setup` is `[[Guide#Step 1 Setup]]`, `## Tasks #work` is `[[Guide#Tasks work]]`),
so the subpath get_outlinks reports for such a link, given back to read_note or patch_note,
names that section. Before, it was `not_found`: only the heading's own text (any case and
spacing) was taken. The heading's own text still wins where both fit."""

from __future__ import annotations

from tests.conftest import Harness

GUIDE = (
    "# Guide\n\n## Step 1: Setup\n\nsetup\n\n## Tasks #work\n\ntasks\n\n## [[Tools|Kit]] list\n\nkit\n\n"
    "## A: B\n\nwith colon\n\n## A B\n\nplain\n\n## Q&A (draft)\n\nqa\n"
)
LINKS = "[[Guide#Step 1 Setup]] [[Guide#Tasks work]] [[Guide#Tools Kit list]]\n"


async def test_the_subpath_of_a_link_names_its_section(vg: Harness) -> None:
    await vg.ok("create_note", path="Guide", content=GUIDE)
    await vg.ok("create_note", path="Index", content=LINKS)
    await vg.settled()
    outlinks = await vg.ok("get_outlinks", path="Index")
    subpaths = [link["subpath"] for link in outlinks["items"]]
    assert subpaths == ["Step 1 Setup", "Tasks work", "Tools Kit list"]
    bodies = []
    for subpath in subpaths:
        read = await vg.ok("read_note", path=f"Guide#{subpath}")
        bodies.append(read["content"].split("\n")[2])
    assert bodies == ["setup", "tasks", "kit"]
    await vg.ok("patch_note", path="Guide", heading=["Guide", "Step 1 Setup"], content="then run it\n")
    assert "setup\n\nthen run it\n" in vg.read("Guide.md")
    exact = await vg.ok("read_note", path="Guide", heading=["A B"])  # the heading's own text first
    assert exact["content"] == "## A B\n\nplain\n"
    colon = await vg.ok("read_note", path="Guide", heading=["A: B"])
    assert colon["content"].startswith("## A: B\n")
    typed = await vg.ok("read_note", path="Guide#Q A draft")  # punctuation as Obsidian compares it
    assert typed["content"] == "## Q&A (draft)\n\nqa\n"
