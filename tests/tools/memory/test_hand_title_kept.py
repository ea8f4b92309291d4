"""A memory write keeps the title a person gave an entity note, or its having none. Every write
rendered the note with `# <name>` first: found by U8 (s75) adding an observation to hand-made
notes of a served vault — "# Ann — my colleague from Lyon" became "# Ann" (the person's words
lost), and a note written without a title (kepano's style: Obsidian shows the file name as the
inline title; also a note in a memory folder set to an existing folder of the vault, References/)
got a "# Bea" heading it never had. A new entity's note is still titled with its name."""

from __future__ import annotations

from tests.conftest import Harness

ANN = (
    "---\nname: Ann\nentityType: person\n---\n# Ann — my colleague from Lyon\n\nSome intro.\n\n"
    "## Observations\n- Likes tea ^o1\n"
)
BEA = "---\nentityType: person\n---\nNo title here.\n\n## Clippings\n\n![[Clippings.base#Author]]\n"


async def test_a_memory_write_keeps_a_persons_title_or_its_absence(vg: Harness) -> None:
    (vg.root / "Memory").mkdir()
    (vg.root / "Memory" / "Ann.md").write_text(ANN, encoding="utf-8")
    (vg.root / "Memory" / "Bea.md").write_text(BEA, encoding="utf-8")
    adds = [{"entityName": "Ann", "contents": ["Plays chess"]}, {"entityName": "Bea", "contents": ["Plays go"]}]
    await vg.ok("add_observations", observations=adds)
    ann = vg.read("Memory/Ann.md")
    assert "\n# Ann — my colleague from Lyon\n\nSome intro.\n\n## Observations\n- Likes tea ^o1\n- Plays chess " in ann
    assert "\n# Ann\n" not in ann
    bea = vg.read("Memory/Bea.md")
    body = bea.split("---\n", 2)[2]
    assert body.startswith("No title here.\n\n## Clippings\n\n![[Clippings.base#Author]]\n"), bea
    assert "# Bea" not in bea and "- Plays go " in bea
    opened = await vg.ok("open_nodes", names=["Ann", "Bea"])
    assert [e["name"] for e in opened["entities"]] == ["Ann", "Bea"]
    assert [o["text"] for o in opened["entities"][1]["observations"]] == ["Plays go"]
    # a note titled by a person and named by nothing else keeps its title as its name
    (vg.root / "Memory" / "Cy.md").write_text("# Cy Twombly\n\n## Observations\n", encoding="utf-8")
    await vg.ok("add_observations", observations=[{"entityName": "Cy Twombly", "contents": ["Painted"]}])
    assert vg.read("Memory/Cy.md").count("# Cy Twombly\n") == 1


async def test_a_new_entitys_note_is_titled_with_its_name(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Dee", "entityType": "person", "observations": ["Sings"]}])
    await vg.ok("add_observations", observations=[{"entityName": "Dee", "contents": ["Dances"]}])
    assert vg.read("Memory/Dee.md").split("---\n", 2)[2].startswith("# Dee\n\n## Observations\n- Sings ")
