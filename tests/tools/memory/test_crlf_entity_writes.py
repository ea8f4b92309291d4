"""A memory entity note saved with CRLF line ends (edited on Windows) keeps them when the memory
writes it: before, add_observations rendered it with LF and kept the CR of each line it carried
over, so `# Ann\n\n\r\n\n## Observations` came out — mixed line ends and a stray blank line. The
entity is read on the note's LF form and written back with its own line ends; so is the capture
inbox when a capture is listed in it or marked filed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ANN = (
    "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- likes tea\n\n"
    "## Relations\n- knows [[Memory/Bob]]\n"
)
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- hi\n\n## Relations\n"


def _lone_lf(data: bytes) -> int:
    return data.count(b"\n") - data.count(b"\r\n")


async def test_memory_writes_keep_a_crlf_entity_notes_line_ends(make_vault: Callable[..., Path]) -> None:
    files = {
        "Memory/Ann.md": ANN.replace("\n", "\r\n"),
        "Memory/Bob.md": BOB.replace("\n", "\r\n"),
        "Memory/Inbox.md": "# Inbox\r\n\r\n- earlier\r\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["likes coffee"]}])
        await vg.ok("delete_observations", deletions=[{"entityName": "Ann", "observations": ["likes tea"]}])
        await vg.ok("create_relations", relations=[{"from": "Bob", "to": "Ann", "relationType": "met"}])
        await vg.ok("delete_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": "knows"}])
        await vg.ok("capture", text="call the plumber")
        [pending] = (await vg.ok("list_captures", status="pending"))["items"]
        await vg.ok("process_capture", capture_id=pending["id"], action="entity", target="Ann")
        ann, bob = (vg.root / "Memory/Ann.md").read_bytes(), (vg.root / "Memory/Bob.md").read_bytes()
        assert _lone_lf(ann) == 0 and _lone_lf(bob) == 0
        assert b"# Ann\r\n\r\n## Observations\r\n- likes coffee [" in ann and b"likes tea" not in ann
        assert b"call the plumber" in ann and b"[[Memory/Bob]]" not in ann
        assert b"- met [[Memory/Ann]]\r\n" in bob
        inbox = (vg.root / "Memory/Inbox.md").read_bytes()
        assert _lone_lf(inbox) == 0 and b"call the plumber" in inbox
        opened = await vg.ok("open_nodes", names=["Ann"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["likes coffee", "call the plumber"]
