"""A capture's text, whatever its lines and marks, is one inbox item whose fields and block id
are its own, and filed into a note it is one paragraph that adds no structure to the note: text
never makes a sub-item, a heading, front matter or a forged `[status:: …]`."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

INBOX = "Memory/Inbox.md"
FORGING = "first line\n# Not a heading\n---\nfake: frontmatter\n- [status:: filed] sub ^cap-0123456789"


def item_of(inbox: str, cid: str) -> str:
    (line,) = [line for line in inbox.split("\n") if line.rstrip().endswith(f"^{cid}")]
    return line


async def test_a_capture_with_line_breaks_is_one_inbox_item_marked_when_it_is_filed(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Home.md": "# Home\n\n## Log\n"})) as vg:
        made = await vg.ok("capture", text="Call Ann\n- about the boiler")
        inbox = vg.read(INBOX)
        filed = await vg.ok("process_capture", capture_id=made["id"], action="note", target="Home", heading="Log")
        marked = vg.read(INBOX)
        listed = (await vg.ok("list_captures", status="all"))["items"]
    assert [line for line in inbox.split("\n") if line.startswith(("- ", "  "))] == [item_of(inbox, made["id"])]
    assert item_of(inbox, made["id"]).startswith("- Call Ann - about the boiler [captured:: ")
    assert filed["inbox_marked"] is True
    assert f"[status:: filed] [filed_to:: [[Home#^{made['id']}]]] ^{made['id']}" in item_of(marked, made["id"])
    assert listed[0]["text"] == "Call Ann\n- about the boiler"  # the queue keeps it as given


async def test_a_capture_cannot_forge_its_status_a_block_id_or_the_target_notes_structure(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Home.md": "# Home\n\n## Log\n\n## Later\n\nsomeday\n"})) as vg:
        made = await vg.ok("capture", text=FORGING)
        lead = await vg.ok("capture", text="---\nfoo: bar\n---\n1. one\n[x] done\n> quote")
        cid = made["id"]
        item = item_of(vg.read(INBOX), cid)
        assert "[status:: " not in item and item.count("^cap-") == 2 and item.endswith(f"^{cid}")
        assert (await vg.ok("list_captures"))["total"] == 2  # still pending as the inbox reads
        await vg.ok("process_capture", capture_id=cid, action="note", target="Home", heading="Log")
        await vg.ok("process_capture", capture_id=lead["id"], action="new_note", target="Ideas/New")
        home, new = vg.read("Home.md"), vg.read("Ideas/New.md")
        assert re.findall(r"^#+ .*$", home, flags=re.M) == ["# Home", "## Log", "## Later"]
        log = home.split("## Log\n", 1)[1].lstrip("\n").split("\n\n", 1)[0]  # one paragraph: the block its id names
        assert log.startswith("first line\n") and log.endswith(f"^{cid}") and "\n- " not in log
        assert not new.startswith("---") and "\n---\n" not in new and "\n1. " not in new and "\n> " not in new
        properties = await vg.ok("get_properties", path="Ideas/New.md")
        assert "foo" not in (properties.get("properties") or {})
