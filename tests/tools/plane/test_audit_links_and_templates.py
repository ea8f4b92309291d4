"""The audit's unlinked mentions and orphans as a reader of the vault means them (U8 s75 #8):

- the text of a link is no unlinked mention: a note holding only `[[Evergreen notes]]` (a link
  to a note not written yet) does not "mention 'Evergreen' without linking [[Categories/Evergreen]]";
  the same words in its prose still do;
- a template note (the core Templates plugin's folder, `.obsidian/templates.json`, or Templater's
  `templates_folder`) is no orphan: nothing is meant to link it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.tools.plane.test_plane import findings, of_kind, run

LINKED_BY = "# {0}\n\nAbout [[Categories/Evergreen]].\n"


VAULT = {
    "Categories/Evergreen.md": "# Evergreen\n\nThe category. [[Ideas/Linked]]\n",
    "Ideas/Linked.md": LINKED_BY.format("Linked"),
    "Ideas/Other.md": LINKED_BY.format("Other"),
    "Ideas/Only link.md": "# Only link\n\n[[Evergreen notes]]\n",
    "Ideas/Aliased link.md": "# Aliased link\n\nSee [[Somewhere|the Evergreen idea]] and ![[Evergreen.png]].\n",
    "Ideas/Prose.md": "# Prose\n\nEvergreen ideas grow. [[Evergreen notes]]\n",
    "Templates/Stock Trade Template.md": "# {{title}}\n\nBought on {{date}}.\n",
    "Tpl/Meeting.md": "# <% tp.file.title %>\n",
    "Lonely.md": "# Lonely\n\nNobody links here.\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    ".obsidian/plugins/templater-obsidian/data.json": json.dumps({"templates_folder": "Tpl/"}),
}


async def audit(make_vault: Callable[..., Path]) -> list[dict[str, Any]]:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        return await findings(vg)


async def test_the_text_of_a_link_is_no_unlinked_mention(make_vault: Callable[..., Path]) -> None:
    items = await audit(make_vault)
    mentions = {(m["detail"]["path"], m["detail"]["target"]) for m in of_kind(items, "unlinked_mention")}
    assert ("Ideas/Prose.md", "Categories/Evergreen.md") in mentions  # its prose names the note
    assert ("Ideas/Only link.md", "Categories/Evergreen.md") not in mentions  # only a link's text does
    assert ("Ideas/Aliased link.md", "Categories/Evergreen.md") not in mentions


async def test_template_notes_are_no_orphans(make_vault: Callable[..., Path]) -> None:
    items = await audit(make_vault)
    orphans = {o["detail"]["path"] for o in of_kind(items, "orphan")}
    assert "Lonely.md" in orphans
    assert not orphans & {"Templates/Stock Trade Template.md", "Tpl/Meeting.md"}
