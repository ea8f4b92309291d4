"""A memory entity note mixing line ends (a CRLF note with LF lines pasted in and a CR alone, as
Obsidian reads them all: every CR, LF and CRLF ends a line) keeps each line's own end when the
memory writes it, as the note-edit tools do (test_mixed_line_ends): a line the write leaves, or
changes in place, keeps its end; a line it adds ends as most of the note's lines do (CRLF here).
Before, the note was re-rendered whole with one end: its LF ('\\n' being the end of a mixed note)
for the headings and observations, the lone CR turned LF, and only the verbatim lines kept a CRLF."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

BODY = (
    "# Ann\r\n\r\n"
    "Met at the conference\rin Lisbon\n\r\n"  # a person's paragraph: a CR alone, an LF
    "## Observations\r\n- likes tea\n- [fact] plays chess\r\n\r\n"
    "## Relations\r\n- knows [[Memory/Bob]]\n\r\n"
    "## Notes\rkept\r\n"
)
ANN = "---\r\nname: Ann\nentityType: person\r\n---\r\n" + BODY
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- hi\n\n## Relations\n"
_ID = re.compile(r"(?: \[[a-z_]+:: [^\]]*\])* \^m-[0-9a-z]{12}")  # provenance and block id


def _body(data: bytes) -> str:
    text = data.decode()
    return _ID.sub("", text[text.index("# Ann") :])


async def test_memory_writes_keep_each_line_end_of_a_mixed_entity_note(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Bob.md": BOB})) as vg:
        await vg.indexed()
        note = vg.root / "Memory/Ann.md"
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["likes coffee"]}])
        added = BODY.replace("plays chess\r\n", "plays chess\r\n- likes coffee\r\n")
        assert _body(note.read_bytes()) == added
        front = note.read_bytes().decode().split("# Ann")[0]
        # kept as written, each line with its end; added (updated): the note's usual CRLF
        assert re.fullmatch('---\r\nname: Ann\nentityType: person\r\nupdated: "[^"]+"\r\n---\r\n', front), front

        await vg.ok("delete_observations", deletions=[{"entityName": "Ann", "observations": ["likes tea"]}])
        added = added.replace("- likes tea\n", "")
        assert _body(note.read_bytes()) == added
        await vg.ok("create_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": "met"}])
        added = added.replace("[[Memory/Bob]]\n", "[[Memory/Bob]]\n- met [[Memory/Bob]]\r\n")
        assert _body(note.read_bytes()) == added
        await vg.ok("delete_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": "knows"}])
        assert _body(note.read_bytes()) == added.replace("- knows [[Memory/Bob]]\n", "")

        opened = await vg.ok("open_nodes", names=["Ann"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["plays chess", "likes coffee"]
        assert (vg.root / "Memory/Bob.md").read_text() == BOB  # an LF note stays LF: relations live in Ann
