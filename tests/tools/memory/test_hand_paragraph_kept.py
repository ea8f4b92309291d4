"""Hand-written parts of an entity note survive a memory write: a person's paragraph under
`## Observations` stays a paragraph apart (acceptance pass s63 T1 #1: the blank line before it was
dropped, so in Obsidian the paragraph rendered inside the agent's bullet), and a property of another
type than the memory tools write stays as written (T1 #2)."""

from __future__ import annotations

from tests.conftest import Harness

HAND = (
    "---\nname: Zoe\nentityType: person\n---\n# Zoe\n\n## Observations\n- likes tea ^m-aaaaaaaaaaaa\n\n"
    "My own paragraph, not a fact.\n\n## Relations\n"
)


async def test_add_then_delete_observations_keep_a_persons_paragraph_apart(vg: Harness) -> None:
    (vg.root / "Memory").mkdir()
    (vg.root / "Memory" / "Zoe.md").write_text(HAND, encoding="utf-8")
    await vg.ok("add_observations", observations=[{"entityName": "Zoe", "contents": ["likes jazz"]}])
    text = (vg.root / "Memory" / "Zoe.md").read_text(encoding="utf-8")
    body = text.split("## Observations\n", 1)[1].split("\n## Relations", 1)[0]
    first, second, blank, paragraph = body.split("\n")[:4]
    assert first == "- likes tea ^m-aaaaaaaaaaaa" and second.startswith("- likes jazz ")
    assert second.split(" ^")[-1].startswith("m-") and blank == "" and paragraph == "My own paragraph, not a fact."
    await vg.ok("delete_observations", deletions=[{"entityName": "Zoe", "observations": ["likes tea"]}])
    text = (vg.root / "Memory" / "Zoe.md").read_text(encoding="utf-8")
    assert "- likes tea" not in text and "\n\nMy own paragraph, not a fact.\n" in text
    opened = await vg.ok("open_nodes", names=["Zoe"])
    assert [o["text"] for o in opened["entities"][0]["observations"]] == ["likes jazz"]


async def test_a_property_of_another_type_survives_a_memory_write(vg: Harness) -> None:
    """`entityType: {kind: person, since: 2020}` became the string "{'kind': 'person', ...}"
    (acceptance pass s63 T1 #2): kept as written; only `updated` moves."""
    (vg.root / "Memory").mkdir()
    note = vg.root / "Memory" / "Ann.md"
    note.write_text("---\nname: Ann\nentityType: {kind: person, since: 2020}\n---\n# Ann\n", encoding="utf-8")
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["likes tea"]}])
    text = note.read_text(encoding="utf-8")
    assert "entityType: {kind: person, since: 2020}\n" in text and "'kind'" not in text  # the line as written
    assert (await vg.ok("get_properties", path="Memory/Ann"))["properties"]["entityType"] == {
        "kind": "person",
        "since": 2020,
    }
