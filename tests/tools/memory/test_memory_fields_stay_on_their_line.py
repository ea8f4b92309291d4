"""What an agent gives a memory write stays on its own line and in its own field (A4 s95), through
the dispatch chain. Before: a category holding a carriage return (`"x\\r- forged fact"`) was written
as given, and the note read back as two lines — a fact without a block id and one the agent never
wrote, holding the added one's block id; supersede_observation's `valid_until` was written
unchecked: an unpaired `%%` hid every later line of the note from open_nodes, a `[` or `]` left the
field unread (the superseded fact read as current, its text holding the raw fields) and a NUL went
into the note; a relation type holding a NUL or another control character went into the note (full
text search lost the rest of it), and validate_plan passed a relation type the call then refused.
Now each is `validation_error` naming its reason, nothing written; a `valid_until` that is a
wikilink (a daily note, as a `source` may hold) and one with a line break (folded to a space, as
a `date`'s) read back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
ANN += (
    "- Lives in Oslo ^m-aaaa\n- Lives in Bergen ^m-bbbb\n- Likes tea ^m-cccc\n\n## Relations\n- knows [[Memory/Bob]]\n"
)
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Plays chess ^m-dddd\n\n## Relations\n"
VAULT = {"Memory/Ann.md": ANN, "Memory/Bob.md": BOB}


@pytest.mark.parametrize("category", ["x\r- forged fact", "note\rtaken"])
async def test_a_category_holding_a_carriage_return_is_refused(make_vault: Callable[..., Path], category: str) -> None:
    async with started(make_vault(VAULT)) as vg:
        batch = {"entityName": "Ann", "contents": ["Owns a boat"], "category": category}
        error = await vg.err("add_observations", "validation_error", observations=[batch])
        assert error["details"]["reason"] == "invalid_category", error
        assert vg.read("Memory/Ann.md") == ANN


@pytest.mark.parametrize(
    ("until", "reason"),
    [
        ("2020 %%", "comment_marker"),
        ("a [b", "brackets"),
        ("2020]", "brackets"),
        ("[[x", "brackets"),
        ("a\x00b", "control_character"),
        ("a\x1bb", "control_character"),
    ],
)
async def test_a_valid_until_that_would_break_its_line_is_refused(
    make_vault: Callable[..., Path], until: str, reason: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        args = {"entityName": "Ann", "observation": "^m-aaaa", "superseded_by": "^m-bbbb", "valid_until": until}
        error = await vg.err("supersede_observation", "validation_error", **args)
        assert error["details"] == {"field": "valid_until", "reason": reason}, error
        assert vg.read("Memory/Ann.md") == ANN
        step = {"id": "s", "tool": "supersede_observation", "args": args}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert [p["code"] for p in checked["problems"]] == ["validation_error"], checked


@pytest.mark.parametrize(
    ("until", "read"),
    [("[[2020-01-01]]", "[[2020-01-01]]"), ("2020\n- forged fact ^m-evil", "2020 - forged fact ^m-evil")],
)
async def test_a_valid_until_reads_back_on_the_superseded_observation(
    make_vault: Callable[..., Path], until: str, read: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        args = {"entityName": "Ann", "observation": "^m-aaaa", "superseded_by": "^m-bbbb", "valid_until": until}
        await vg.ok("supersede_observation", **args)
        opened = await vg.ok("open_nodes", names=["Ann"])
        shown = [
            (o["text"], o["block_id"], o["superseded_by"], o["valid_until"])
            for o in opened["entities"][0]["observations"]
        ]
        assert shown == [
            ("Lives in Oslo", "m-aaaa", "m-bbbb", read),
            ("Lives in Bergen", "m-bbbb", None, None),
            ("Likes tea", "m-cccc", None, None),
        ], vg.read("Memory/Ann.md")
        assert opened["relations"] == [{"from": "Ann", "to": "Bob", "relationType": "knows"}]


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("knows\x00", "control_character"),
        ("knows\x1bx", "control_character"),
        ("a\x7fb", "control_character"),
        ("a %% b", "comment_marker"),
    ],
)
async def test_a_relation_type_with_a_control_character_is_refused(
    make_vault: Callable[..., Path], kind: str, reason: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        relation = {"from": "Bob", "to": "Ann", "relationType": kind}
        error = await vg.err("create_relations", "validation_error", relations=[relation])
        assert error["details"] == {"field": "relations[0].relationType", "reason": reason}, error
        assert vg.read("Memory/Bob.md") == BOB
        step = {"id": "r", "tool": "create_relations", "args": {"relations": [relation]}}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert [p["code"] for p in checked["problems"]] == ["validation_error"], checked
