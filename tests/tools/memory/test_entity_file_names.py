"""Entity names to note files through the dispatch chain (T1 items 8 and 9): two long names that
share a start are two notes, a long name in a non-Latin script fits a file name, and the real
name stays in the frontmatter."""

from __future__ import annotations

from tests.conftest import Harness


async def test_two_long_names_sharing_a_start_are_two_entities(vg: Harness) -> None:
    stem = "Q3: plan? " * 14  # each ':' and '?' is written `~XX` in the file name
    pairs = [(stem + "Alpha team", stem + "Beta team"), ("/" * 199, "/" * 200)]
    for a, b in pairs:
        ra = await vg.ok("create_entities", entities=[{"name": a, "entityType": "plan", "observations": ["fact A"]}])
        rb = await vg.ok("create_entities", entities=[{"name": b, "entityType": "plan", "observations": ["fact B"]}])
        assert rb["existing"] == [] and len(rb["created"]) == 1
        path_a, path_b = ra["created"][0]["path"], rb["created"][0]["path"]
        assert path_a != path_b
        for path in (path_a, path_b):
            file = path.removeprefix("Memory/")
            assert "/" not in file and len(file.encode("utf-8")) <= 255
        await vg.ok("add_observations", observations=[{"entityName": b, "contents": ["only B"]}])
        nodes = await vg.ok("open_nodes", names=[a, b])
        got = {e["name"]: [o["text"] for o in e["observations"]] for e in nodes["entities"]}
        assert got == {a: ["fact A"], b: ["fact B", "only B"]} and nodes["missing"] == []
        assert "only B" not in vg.read(path_a)


async def test_a_long_name_in_any_script_fits_a_file_name(vg: Harness) -> None:
    for name in ("记忆" * 45, "é" * 200, "😀" * 200, "記" * 200):
        missing = await vg.ok("open_nodes", names=[name])
        assert missing["missing"] == [name] and missing["entities"] == []
        out = await vg.ok("create_entities", entities=[{"name": name, "entityType": "topic", "observations": ["x"]}])
        path = out["created"][0]["path"]
        assert len(path.removeprefix("Memory/").encode("utf-8")) <= 255
        assert f'name: "{name}"' in vg.read(path)
        nodes = await vg.ok("open_nodes", names=[name])
        assert [e["name"] for e in nodes["entities"]] == [name]


async def test_names_that_fit_keep_their_file_names(vg: Harness) -> None:
    cases = {
        "Alice": "Memory/Alice.md",
        "AC/DC": "Memory/AC~2FDC.md",
        "con": "Memory/~_con.md",
        "x" * 180: f"Memory/{'x' * 180}.md",
    }
    for name, path in cases.items():
        out = await vg.ok("create_entities", entities=[{"name": name, "entityType": "t"}])
        assert out["created"][0]["path"] == path


async def test_an_entity_renamed_by_hand_is_addressed_by_its_new_name(vg: Harness) -> None:
    """The `name` property is the entity's name (docs/memory.md): after a person renames the entity
    in Obsidian, or renames its note's file, the tools take the name they show (T1 item 16)."""
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person", "observations": ["Likes tea"]}])
    note = vg.root / "Memory/Alice.md"
    note.write_text(note.read_text(encoding="utf-8").replace('name: "Alice"', 'name: "Alicia"'), encoding="utf-8")
    nodes = await vg.ok("open_nodes", names=["Alicia"])
    assert [e["name"] for e in nodes["entities"]] == ["Alicia"] and nodes["missing"] == []
    await vg.ok("add_observations", observations=[{"entityName": "Alicia", "contents": ["Drinks it green"]}])
    assert "Drinks it green" in vg.read("Memory/Alice.md") and not (vg.root / "Memory/Alicia.md").exists()
    again = await vg.ok("create_entities", entities=[{"name": "Alicia", "entityType": "person"}])
    assert again == {**again, "created": [], "existing": ["Alicia"]}

    await vg.ok("create_entities", entities=[{"name": "Bob", "entityType": "person", "observations": ["Likes coffee"]}])
    (vg.root / "Memory/Bob.md").rename(vg.root / "Memory/Bob Smith.md")  # renamed in Obsidian's file explorer
    nodes = await vg.ok("open_nodes", names=["Bob"])
    assert [e["name"] for e in nodes["entities"]] == ["Bob"] and nodes["missing"] == []
    again = await vg.ok("create_entities", entities=[{"name": "Bob", "entityType": "person"}])
    assert again["created"] == [] and again["existing"] == ["Bob"] and not (vg.root / "Memory/Bob.md").exists()
    await vg.ok("create_relations", relations=[{"from": "Alicia", "to": "Bob", "relationType": "knows"}])
    assert "- knows [[Memory/Bob Smith]]" in vg.read("Memory/Alice.md")
    plan = {
        "goal": "one more fact",
        "steps": [
            {
                "id": "a",
                "tool": "add_observations",
                "args": {"observations": [{"entityName": "Bob", "contents": ["x"]}]},
            }
        ],
    }
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["effects"]["files_modified"] == ["Memory/Bob Smith.md"], checked


async def test_a_name_holding_a_character_new_names_refuse_is_escaped_in_its_file_name(vg: Harness) -> None:
    # a soft hyphen (text copied from the web), a zero-width space, a Hangul filler, a variation
    # selector after a letter: create_entities answered path_invalid about a file the agent never
    # named (review R4 s62 F2); the name stays whole in the frontmatter
    names = ["Ho\u00adme", "Wel\u200bcome", "Ann\u3164", "Key\ufe0fword", "C1\u0085ctl"]
    out = await vg.ok(
        "create_entities", entities=[{"name": n, "entityType": "x", "observations": ["o"]} for n in names]
    )
    paths = [c["path"] for c in out["created"]]
    assert len(paths) == len(names) and all("~" in p for p in paths)
    nodes = await vg.ok("open_nodes", names=names)
    assert sorted(e["name"] for e in nodes["entities"]) == sorted(names) and nodes["missing"] == []
