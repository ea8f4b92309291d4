"""suggest_links takes a name written in capitals (an acronym) only in capitals. On a real
zettelkasten (3,441 notes with aliases, most of them acronyms) `Postel's Law` got the suggestions
`[[Bullshit Avoidance Discipline|Bad]]` (alias `BAD`) for 'Bad for security' and `[[Controller Area
Network Bus|Can]]` (alias `CAN`) for 'Can lead to': every sentence starting with such a word was a
link to an unrelated note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.graph.mentions import NameIndex, mentions
from tests.conftest import started

FILES = {
    "Hardware/Controller Area Network Bus.md": "---\naliases: [CAN]\n---\nA vehicle bus.\n",
    "Bullshit Avoidance Discipline.md": "---\naliases:\n  - BAD\n---\nA habit.\n",
    "Security/NASA.md": "# NASA\n",
    "Postel's Law.md": "Bad for security.\nCan lead to bugs; the CAN bus is not at fault, nor is nasa or NASA.\n"
    "A Kickoff alias in any case: kickoff.\n",
    "Launch.md": "---\naliases: [Kickoff]\n---\n",
}


async def test_an_acronym_is_suggested_only_in_capitals(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("suggest_links", path="Postel's Law")
        assert [(i["line"], i["mention"], i["target"]) for i in out["items"]] == [
            (2, "CAN", "Hardware/Controller Area Network Bus.md"),
            (2, "NASA", "Security/NASA.md"),
            (3, "Kickoff", "Launch.md"),
            (3, "kickoff", "Launch.md"),
        ], out["items"]


def test_an_acronym_name_matches_only_as_written() -> None:
    names = NameIndex([("CAN.md", "CAN", []), ("Bus.md", "Bus", ["HTTP GET"])])
    found = [m.mention for m in mentions("Me.md", "Can a can CAN? http get, HTTP GET, bus.\n", names)]
    assert found == ["CAN", "HTTP GET", "bus"]
