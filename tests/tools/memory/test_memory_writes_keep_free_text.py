"""A memory write changes only the memory's own lines (U10 s76 #5): every other byte of an entity
note — a person's paragraphs and the blank lines between them, callouts, comments, code blocks,
headings of other levels, text before the title and after the sections, trailing spaces, CRLF
line ends, a last line without a line end — stays as it was.

Property test through the dispatch chain: random entity notes with human text in every section,
each memory tool that rewrites an entity note, and the note's text outside the memory's items
(its observation and relation lines, its frontmatter) compared byte for byte before and after.
The only line a write may add besides items is one blank line before new items that follow a
paragraph (so the paragraph does not run into the list), and a last line without a line end gets
one when an item is added after it."""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.conftest import Harness

FREE = [
    "A paragraph a person wrote.",
    "Another line of the same paragraph, with a [[Welcome]] link.",
    "Two trailing spaces make a line break.  ",
    "> [!note] A callout\n> its second line",
    "> a plain quote",
    "%% a comment %%",
    "%%\na comment over\n\nseveral lines\n%%",
    "<!-- an html comment -->",
    "```python\nx = 1\n\n- not an item [[Nobody]]\n## Observations\n```",
    "~~~\n- knows [[Memory/Fake]]\n~~~",
    "### A sub heading",
    "#### A deeper heading",
    "* a star list item",
    "1. a numbered item",
    "| a | table |\n|---|---|\n| 1 | 2 |",
    "Text with a tab\tinside",
    "Émoji 🎉 and accents: café",
]


def _free(rng: random.Random, most: int) -> list[str]:
    """Human text: pieces of FREE with blank lines between some (0 to 3), maybe none at all."""
    out: list[str] = []
    for _ in range(rng.randint(0, most)):
        out += [""] * rng.choice([0, 1, 1, 2, 3]) + rng.choice(FREE).split("\n")
    return out + [""] * rng.choice([0, 0, 1, 2])


def _note(seed: int, *, with_newer: bool = False) -> str:
    """An entity note of Ann with human text everywhere.
    `with_newer`: its first observation is "Plays chess" (what supersede_observation names)."""
    rng = random.Random(seed)
    obs = [f"- Fact number {i} about Ann ^b{seed}x{i}" for i in range(rng.randint(0, 3))]
    obs = ["- Plays chess ^new1", *obs] if with_newer else obs
    rels = ["- knows [[Memory/Carl]]", "- works_with [[Memory/Bob|Bobby]]"][: rng.randint(0, 2)]
    lines = ["---", "name: Ann", "entityType: person", "---"]
    if rng.random() < 0.2:
        lines += ["Text before the title.", ""]
    if rng.random() < 0.8:
        lines += ["# Ann"]
    lines += _free(rng, 2)
    for heading, items in (("## Observations", obs), ("## Relations", rels)):
        lines += ["", heading] if lines[-1] else [heading]
        lines += _free(rng, 1)
        for item in items:
            lines.append(item)
            if rng.random() < 0.3:
                lines.append("  a line continuing the item")
            if rng.random() < 0.4:
                lines += _free(rng, 1)
        # text after the items, ending the section with a sub heading sometimes
        lines += _free(rng, 2)
    if rng.random() < 0.5:
        lines += ["", "## Notes", "", "Trailing text.", "", "More trailing text."]
    text = "\n".join(lines)
    if rng.random() < 0.8:
        text += "\n"
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    return text


_FENCE = re.compile(r"^(`{3,}|~{3,})")
# a list item's start (CommonMark: `-`, `*`, `+`, `1.`, `1)`, up to three spaces before it); since s78
# every such item right under `## Observations` is an observation (before: `- ` only)
_START = r"^ {0,3}(?:[-*+]|[0-9]{1,9}[.)])[ \t]+"
_OBS = re.compile(_START + r"\S")
_REL = re.compile(_START + r"[^\[\]]+ \[\[[^\]]+\]\]\s*$")


def _items(lines: list[str]) -> set[int]:
    """Which lines are the memory's items (what a write may add, remove or change), read apart
    from the service's parser: list items right under `## Observations` / `## Relations`, outside
    code blocks, up to the next heading."""
    out: set[int] = set()
    section, fence = "", ""
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if fence:
            fence = "" if line.startswith(fence) else fence
            continue
        if m := _FENCE.match(line):
            fence = m.group(1)
            continue
        if line.startswith("#"):
            section = {"## observations": "obs", "## relations": "rel"}.get(line.rstrip().casefold(), "")
        elif section == "obs" and _OBS.match(line) or section == "rel" and _REL.match(line):
            out.add(i)
    return out


def _body_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    close = next(i for i, line in enumerate(lines[1:], 1) if line.rstrip("\r\n") == "---")
    return lines[close + 1 :]


def assert_only_items_changed(before: str, after: str, tool: str) -> None:
    old, new = _body_lines(before), _body_lines(after)
    old_items, new_items = _items(old), _items(new)
    kept_old = [line for i, line in enumerate(old) if i not in old_items]
    kept_at = [i for i in range(len(new)) if i not in new_items]
    kept_new = [new[i] for i in kept_at]
    ops = difflib.SequenceMatcher(None, kept_old, kept_new, autojunk=False).get_opcodes()
    for op, i1, i2, j1, j2 in ops:
        if op == "equal":
            continue
        added = [kept_at[j] for j in range(j1, j2)]
        separator = (
            op == "insert"
            and len(added) == 1
            and not new[added[0]].strip()
            and bool({added[0] - 1, added[0] + 1} & new_items)  # blank lines alike: either side of the item
        )
        # the note's last line, which had no line end, gets one when an item now follows it
        ended = op == "replace" and kept_old[i1:i2] == [old[-1]] == [line.rstrip("\r\n") for line in kept_new[j1:j2]]
        assert separator or ended, (
            f"{tool} changed a person's text: {op} {kept_old[i1:i2]!r} -> {kept_new[j1:j2]!r}\n"
            f"--- before\n{before}\n--- after\n{after}"
        )


Write = Callable[[Harness], Awaitable[Any]]


async def _capture_filed(vg: Harness) -> Any:
    made = await vg.ok("capture", text="Met Ann at the fair")
    return await vg.ok("process_capture", capture_id=made["id"], action="entity", target="Ann")


async def _promoted(vg: Harness) -> Any:
    made = await vg.ok("record_experience", kind="worked", text="Ann answers fast on mondays")
    return await vg.confirmed("promote_experience", experience_id=made["experience"]["id"], entity="Ann")


WRITES: dict[str, tuple[Write, str]] = {
    # tool -> (the write, what the note must hold for it: "" any note, "obs" an observation, "rel" a relation)
    "add_observations": (
        lambda vg: vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Plays chess"]}]),
        "",
    ),
    "delete_observations": (
        lambda vg: vg.ok(
            "delete_observations", deletions=[{"entityName": "Ann", "observations": ["Fact number 0 about Ann"]}]
        ),
        "obs",
    ),
    "create_relations": (
        lambda vg: vg.ok("create_relations", relations=[{"from": "Ann", "to": "Dora", "relationType": "met"}]),
        "",
    ),
    "delete_relations": (
        lambda vg: vg.ok("delete_relations", relations=[{"from": "Ann", "to": "Carl", "relationType": "knows"}]),
        "rel",
    ),
    "supersede_observation": (
        lambda vg: vg.ok(
            "supersede_observation",
            entityName="Ann",
            observation="Fact number 0 about Ann",
            superseded_by="Plays chess",
        ),
        "obs",
    ),
    "merge_observations": (lambda vg: vg.ok("merge_observations", entityName="Ann", mergedName="Bob"), ""),
    "memory_store": (lambda vg: vg.ok("memory_store", key="Ann", value="Lives in Oslo"), ""),
    "process_capture": (_capture_filed, ""),
    "promote_experience": (_promoted, ""),
}
SEEDS = range(40)


@pytest.mark.parametrize("tool", sorted(WRITES))
async def test_a_memory_write_keeps_every_byte_of_a_persons_text(vg: Harness, tool: str) -> None:
    write, needs = WRITES[tool]
    memory = vg.root / "Memory"
    memory.mkdir()
    (memory / "Bob.md").write_text("---\nname: Bob\n---\n# Bob\n\n## Observations\n- Bob likes jazz ^bob1\n")
    for other in ("Carl", "Dora"):
        (memory / f"{other}.md").write_text(f"---\nname: {other}\n---\n# {other}\n")
    done = 0
    for seed in SEEDS:
        text = _note(seed, with_newer=tool == "supersede_observation")
        lines = _body_lines(text)
        items = [lines[i] for i in _items(lines)]
        if needs and not any(("Fact number 0" if needs == "obs" else "[[Memory/Carl]]") in item for item in items):
            continue  # the item the write names is not in this note (or is no item: under a sub heading)
        note = memory / "Ann.md"
        note.write_bytes(text.encode("utf-8"))
        await write(vg)
        after = note.read_bytes().decode("utf-8")
        assert after != text, f"{tool} wrote nothing (seed {seed})"
        assert_only_items_changed(text, after, f"{tool} (seed {seed})")
        if "\r\n" in text:
            assert "\n" not in after.replace("\r\n", ""), f"{tool} (seed {seed}) wrote a bare LF into a CRLF note"
        done += 1
    assert done >= 8  # enough notes of the shape the write needs


async def test_two_paragraphs_under_relations_stay_two_after_add_observations(vg: Harness) -> None:
    """U10 s76 #5 as it was found: text appended under `## Relations` lost its blank line."""
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person"}])
    await vg.ok("append_note", path="Memory/Ann.md", content="\nFirst para.\n\nSecond para.\n")
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Plays chess"]}])
    text = (vg.root / "Memory" / "Ann.md").read_text(encoding="utf-8")
    assert "\nFirst para.\n\nSecond para.\n" in text, text
    opened = await vg.ok("open_nodes", names=["Ann"])
    assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Plays chess"]
