"""The memory knowledge graph through the dispatch chain: entities are notes in the memory folder,
in the official memory server's argument shapes; many agents add to one entity and lose nothing;
a person's edit on disk is memory too; bad input changes nothing; a denied folder shows nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.app import VaultgateApp
from service.memory.model import file_name
from tests.conftest import Harness, settings_for, started
from tests.tools.memory.reads import counted_reads

ALICE = {"name": "Alice", "entityType": "person", "observations": ["Works at Acme", "Lives in Oslo"]}


@pytest.mark.covers("create_entities", "success")
async def test_entities_are_notes_with_their_observations_and_existing_names_are_reported(vg: Harness) -> None:
    out = await vg.ok("create_entities", entities=[ALICE, {"name": "AC/DC", "entityType": "band", "observations": []}])
    assert [e["name"] for e in out["created"]] == ["Alice", "AC/DC"] and out["existing"] == []
    note = vg.read("Memory/Alice.md")
    assert "## Observations" in note and "- Works at Acme [recorded:: " in note and 'entityType: "person"' in note
    band = out["created"][1]["path"]
    assert band.startswith("Memory/") and "/" not in band.removeprefix("Memory/")
    assert 'name: "AC/DC"' in vg.read(band)
    again = await vg.ok("create_entities", entities=[ALICE])
    assert again["created"] == [] and again["existing"] == ["Alice"]
    odd = await vg.ok("create_entities", entities=[{"name": "../../outside", "entityType": "x"}])
    assert odd["created"][0]["path"].startswith("Memory/") and not (vg.root.parent / "outside.md").exists()


@pytest.mark.covers("create_entities", "failure")
async def test_bad_entity_names_are_refused_and_nothing_is_written(vg: Harness) -> None:
    before = vg.snapshot()
    for name in ("", "   ", "x" * 10_000, "...", "a\x00b", "line\nbreak"):
        await vg.err("create_entities", "validation_error", entities=[ALICE, {"name": name, "entityType": "t"}])
    assert vg.snapshot() == before


@pytest.mark.covers("add_observations", "success")
async def test_observations_are_added_once_with_provenance_and_block_ids(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE])
    out = await vg.ok(
        "add_observations",
        observations=[
            {
                "entityName": "Alice",
                "contents": ["Prefers tea", "works at acme."],
                "source": "D1:3",
                "date": "2023-05-08",
            }
        ],
    )
    result = out["results"][0]
    assert result["addedObservations"] == ["Prefers tea"] and result["skipped_duplicates"] == ["works at acme."]
    note = vg.read("Memory/Alice.md")
    line = next(x for x in note.splitlines() if "Prefers tea" in x)
    assert "[source:: D1:3]" in line and "[date:: 2023-05-08]" in line and line.endswith(f"^{result['block_ids'][0]}")


@pytest.mark.covers("add_observations", "failure")
async def test_observations_for_an_unknown_entity_are_refused_with_suggestions(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE])
    before = vg.snapshot()
    error = await vg.err(
        "add_observations",
        "note_not_found",
        observations=[{"entityName": "Alice", "contents": ["a"]}, {"entityName": "Alicia", "contents": ["b"]}],
    )
    assert "Alice" in error["details"]["suggestions"]
    assert vg.snapshot() == before  # all checked before the first write


async def test_a_miss_suggests_close_names_reading_only_the_notes_it_suggests(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = [{"name": f"Topic {i:03d}", "entityType": "topic"} for i in range(60)]
    await vg.ok("create_entities", entities=[ALICE, {"name": "AC/DC", "entityType": "band"}, *many])
    reads = counted_reads(monkeypatch)
    error = await vg.err(
        "add_observations", "note_not_found", observations=[{"entityName": "AC/DX", "contents": ["a"]}]
    )
    assert "AC/DC" in error["details"]["suggestions"]  # the real name, though the file name is escaped
    assert len(reads) <= 5  # not one read per entity note (62 of them)


async def test_32_agents_adding_to_one_entity_lose_nothing_and_duplicate_nothing(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Hub", "entityType": "topic"}])

    async def agent(i: int) -> None:
        await vg.ok("add_observations", observations=[{"entityName": "Hub", "contents": [f"fact {i}", "shared"]}])

    await asyncio.gather(*(agent(i) for i in range(32)))
    opened = await vg.ok("open_nodes", names=["Hub"])
    texts = [o["text"] for o in opened["entities"][0]["observations"]]
    assert sorted(texts) == sorted([f"fact {i}" for i in range(32)] + ["shared"])


async def test_a_hand_edit_on_disk_is_memory_and_survives_the_next_write(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE])
    path = vg.root / "Memory/Alice.md"
    text = path.read_text().replace("## Observations\n", "## Observations\n- [pref] likes hiking\nsome free text\n")
    path.write_text(text, encoding="utf-8")
    await vg.ok("add_observations", observations=[{"entityName": "Alice", "contents": ["Speaks Norwegian"]}])
    opened = await vg.ok("open_nodes", names=["Alice"])
    texts = [o["text"] for o in opened["entities"][0]["observations"]]
    assert "likes hiking" in texts and "Speaks Norwegian" in texts
    assert "- [pref] likes hiking\n" in path.read_text() and "some free text" in path.read_text()


@pytest.mark.covers("create_relations", "success")
@pytest.mark.covers("open_nodes", "success")
async def test_relations_are_wikilinks_and_open_nodes_shows_both_directions(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE, {"name": "Acme", "entityType": "company"}])
    rel = {"from": "Alice", "to": "Acme", "relationType": "works_at"}
    out = await vg.ok("create_relations", relations=[rel, rel])
    assert len(out["created"]) == 1 and len(out["skipped_duplicates"]) == 1
    assert "- works_at [[Memory/Acme]]" in vg.read("Memory/Alice.md")
    opened = await vg.ok("open_nodes", names=["Acme", "Nobody"])
    assert opened["missing"] == ["Nobody"]
    assert opened["relations"] == [{"from": "Alice", "to": "Acme", "relationType": "works_at"}]


@pytest.mark.covers("create_relations", "failure")
async def test_relations_to_nothing_or_to_itself_are_refused(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE])
    before = vg.snapshot()
    error = await vg.err(
        "create_relations",
        "validation_error",
        relations=[{"from": "Alice", "to": "Alicia Keys", "relationType": "knows"}],
    )
    assert error["details"]["reason"] == "unknown_endpoint"
    error = await vg.err(
        "create_relations", "validation_error", relations=[{"from": "Alice", "to": "alice", "relationType": "is"}]
    )
    assert error["details"]["reason"] == "self_relation"
    assert vg.snapshot() == before


@pytest.mark.covers("open_nodes", "failure")
async def test_a_caller_denied_the_memory_folder_learns_nothing(make_vault: Callable[..., Path]) -> None:
    vault = {"Memory/Alice.md": '---\nname: "Alice"\nentityType: "person"\n---\n# Alice\n\n## Observations\n- secret\n'}
    acl = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
    async with started(make_vault(vault), acl=acl) as vg:
        await vg.err("open_nodes", "acl_denied", names=["Alice"])
        await vg.err("create_entities", "acl_denied", entities=[ALICE])
        await vg.err("add_observations", "acl_denied", observations=[{"entityName": "Alice", "contents": ["x"]}])


async def test_relation_types_with_spaces_work_as_in_the_memory_server(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE, {"name": "Acme", "entityType": "company"}])
    await vg.ok("create_relations", relations=[{"from": "Alice", "to": "Acme", "relationType": "works at"}])
    assert "- works at [[Memory/Acme]]" in vg.read("Memory/Alice.md")
    opened = await vg.ok("open_nodes", names=["Alice"])
    assert opened["relations"] == [{"from": "Alice", "to": "Acme", "relationType": "works at"}]


async def test_more_than_1000_observations_in_one_call_are_refused(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ALICE, {"name": "Bob", "entityType": "person"}])
    before = vg.snapshot()
    batches = [{"entityName": n, "contents": [f"{n} fact {i}" for i in range(600)]} for n in ("Alice", "Bob")]
    error = await vg.err("add_observations", "validation_error", observations=batches)
    assert error["details"]["reason"] == "too_many"
    assert vg.snapshot() == before


async def test_a_call_over_several_entities_is_all_or_nothing_when_a_write_fails(tmp_path: Path) -> None:
    """The second entity's write fails (a step hook raises after the first note is written): the
    first note is put back byte for byte and the call answers with an error."""
    root = tmp_path / "v"
    root.mkdir()

    async def fail_after_first(label: str, phase: str, done: int, total: int) -> None:
        if phase == "commit" and done == 1 and label.startswith(("add_observations", "create_relations")):
            raise OSError("disk full")

    app = VaultgateApp(settings_for(root), step_hook=fail_after_first)
    async with app.running():
        vg = Harness(app, root)
        people = [{"name": n, "entityType": "person", "observations": [f"{n} likes tea"]} for n in ("Ann", "Bob")]
        await vg.ok("create_entities", entities=people)
        before = vg.snapshot()
        batches = [{"entityName": n, "contents": [f"{n} moved to Oslo"]} for n in ("Ann", "Bob")]
        result = await vg.call("add_observations", observations=batches)
        assert result.is_error
        relations = [
            {"from": "Ann", "to": "Bob", "relationType": "knows"},
            {"from": "Bob", "to": "Ann", "relationType": "knows"},
        ]
        assert (await vg.call("create_relations", relations=relations)).is_error
        assert vg.snapshot() == before
        one = await vg.ok("add_observations", observations=batches[:1])  # one entity: no steps, no hook
        assert one["results"][0]["addedObservations"] == ["Ann moved to Oslo"]


async def test_an_observation_that_says_nearly_the_same_is_added_and_reported_with_the_similar_one(vg: Harness) -> None:
    first = "Lives in Berlin with two cats"
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": [first]}])
    out = await vg.ok(
        "add_observations",
        observations=[{"entityName": "Ann", "contents": ["She lives in Berlin with her two cats", "Plays chess"]}],
    )
    result = out["results"][0]
    assert result["addedObservations"] == ["She lives in Berlin with her two cats", "Plays chess"]
    assert [(s["text"], s["existing"]) for s in result["similar_existing"]] == [
        ("She lives in Berlin with her two cats", first)
    ]
    assert result["similar_existing"][0]["existing_block_id"]
    opened = await vg.ok("open_nodes", names=["Ann"])
    assert len(opened["entities"][0]["observations"]) == 3  # both kept: reported, never merged


def _entity_note(name: str) -> str:
    return f"---\nname: {json.dumps(name)}\nentityType: person\n---\n# {name}\n\n## Observations\n- likes tea ^m-1\n"


def _notes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        # the server's and Obsidian's folders are left out, not the trash: a deleted note's copy is a new file
        if p.is_file() and not any(part.startswith(".") and part != ".trash" for part in p.relative_to(root).parts)
    }


PREVIEWED: list[tuple[str, dict[str, Any]]] = [
    ("create_entities", {"entities": [{"name": n, "entityType": "t"} for n in ("Ann", "Q3: plan?", "Bob")]}),
    ("add_observations", {"observations": [{"entityName": n, "contents": ["new"]} for n in ("Ann", "AC/DC", "Ann")]}),
    ("create_relations", {"relations": [{"from": "AC/DC", "to": "Ann", "relationType": "plays_for"}]}),
    ("delete_observations", {"deletions": [{"entityName": "Ann", "observations": ["likes tea"]}]}),
    ("delete_entities", {"entityNames": ["Ann", "Nobody"]}),
    ("memory_store", {"key": "Rent", "value": "Due on the 3rd"}),
]


@pytest.mark.parametrize(("tool", "args"), PREVIEWED, ids=[t for t, _ in PREVIEWED])
async def test_the_dry_run_preview_names_exactly_the_entity_notes_the_call_then_changes(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    """A vault in dry-run mode previews a memory call as the notes its arguments name; the same
    call run for real changes exactly those notes (an entity that exists is only reported by
    create_entities; a name that is no entity is not listed by delete_entities)."""
    start = {f"Memory/{file_name(n)}.md": _entity_note(n) for n in ("Ann", "AC/DC")}
    seen: dict[str, dict[str, list[str]]] = {}
    for mode in ("dry-run", "allow"):
        root = make_vault({"Home.md": "# Home\n", **start})
        async with started(root, vaults=[{"id": "main", "path": root, "write_mode": mode}]) as vg:
            before = _notes(root)
            if mode == "dry-run":
                effects = (await vg.ok(tool, **args))["effects"]
                seen[mode] = {k: sorted(effects[f"files_{k}"]) for k in ("created", "modified", "deleted")}
                assert _notes(root) == before
                continue
            if tool == "delete_entities":
                await vg.ok(tool, **args, elicit_token=await vg.token_for(tool, **args))
            else:
                await vg.ok(tool, **args)
            after = _notes(root)
            seen[mode] = {
                "created": sorted(after.keys() - before.keys()),
                "modified": sorted(p for p in after.keys() & before.keys() if after[p] != before[p]),
                "deleted": sorted(before.keys() - after.keys()),
            }
    assert seen["dry-run"] == seen["allow"]
    assert any(seen["allow"].values())
