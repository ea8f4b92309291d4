"""A person's paragraph under `## Observations` stays a paragraph when an agent adds a fact: the
blank line before it is kept and the new item goes after the last item (acceptance pass s63 T1
#1: the blank line was dropped, so in Obsidian the paragraph rendered inside the agent's bullet
and the bullet's block id no longer ended its block)."""

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
