"""validate_plan tells a step's encoding refusal as the run tells it (E3 s83, after 89880ffa and
5881cf20): an append, a patch, a property edit or an add_observations whose text a cp1252 note
cannot hold was foreseen by its code alone ("refuses the edit"); its problem now carries the run's
own message and details (the note, the encoding, the character, its codepoint). The refusal's hint
fits the file: write_note's overwrite for a note, not for a drawing or a memory entity's note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

NOTE = "# Café\r\n\r\nCrème\r\n"
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("append_note", {"path": "L.md", "content": "- fête 🎉"}),
    ("patch_note", {"path": "L.md", "heading": "Café", "content": "thé ☕"}),
    ("set_properties", {"path": "L.md", "properties": {"mood": "🙂"}}),
    ("add_observations", {"observations": [{"entityName": "Bo", "contents": ["fête 🎉"]}]}),
]


async def test_validate_plan_tells_the_encoding_refusal_as_the_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": NOTE.encode("cp1252")})) as vg:
        await vg.indexed()
        await vg.ok(
            "create_entities", entities=[{"name": "Bo", "entityType": "person", "observations": ["vit à Lyon"]}]
        )
        bo = vg.root / "Memory/Bo.md"
        bo.write_bytes(bo.read_bytes().decode().encode("cp1252"))
        before = {p: p.read_bytes() for p in (vg.root / "L.md", bo)}
        for tool, args in STEPS:
            ran = await vg.err(tool, "validation_error", **args)
            assert ran["details"]["reason"] == "unrepresentable", ran
            plan = {"goal": "g", "steps": [{"id": "one", "tool": tool, "args": args}]}
            checked = await vg.ok("validate_plan", plan=plan)
            [problem] = checked["problems"]
            assert (problem["step"], problem["code"]) == ("one", "validation_error"), problem
            assert problem["details"] == ran["details"], (tool, problem, ran)
            assert ran["message"] in problem["message"], (tool, problem, ran)
            refused = await vg.err("execute_plan", "validation_error", plan=plan)
            assert refused["details"]["problems"] == checked["problems"], refused
            entity = tool == "add_observations"
            assert ran["details"]["path"] == ("Memory/Bo.md" if entity else "L.md"), ran
            assert ("write_note" in ran["hint"]) is not entity and ("entity" in ran["hint"]) is entity, ran
        assert {p: p.read_bytes() for p in before} == before
        # a foreach step's call is told at its index; other problems carry no details
        each = {
            "id": "e",
            "tool": "append_note",
            "foreach": ["ok", "🎉"],
            "args": {"path": "L.md", "content": "${item}"},
        }
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [each]})
        [problem] = checked["problems"]
        assert problem["step"] == "e[1]" and problem["details"]["character"] == "🎉", problem
        missing = {"id": "m", "tool": "append_note", "args": {"path": "Nowhere.md", "content": "x"}}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [missing]})
        direct = await vg.err("append_note", "note_not_found", path="Nowhere.md", content="x")  # its details (E6 s85)
        assert [(p.get("details"), p["code"]) for p in checked["problems"]] == [(direct["details"], "note_not_found")]
        # a cp1252 drawing's refusal does not advise writing the whole file
        await vg.ok("write_excalidraw", path="Plan", add=[{"type": "text", "x": 0, "y": 0, "text": "Café"}])
        [drawing] = [p for p in vg.root.iterdir() if p.name.endswith(".excalidraw.md")]
        drawing.write_bytes(drawing.read_bytes().decode().encode("cp1252"))
        ran = await vg.err(
            "write_excalidraw", "validation_error", path="Plan", add=[{"type": "text", "x": 0, "y": 9, "text": "🎉"}]
        )
        assert ran["details"]["reason"] == "unrepresentable" and "drawing" in ran["hint"], ran
        assert "overwrite" not in ran["hint"], ran
