"""validate_plan foresees a replace_text over a folder, over the whole vault, or given a bare note
name, whose replacement a note's encoding cannot hold (an emoji into a cp1252 note), as the run
refuses it (E6 s85, after E5 s84's 300e78b3 for `path=` a note's path): validate_plan said valid,
the run answered `validation_error` (`unrepresentable`). The notes it changes are read as the earlier
steps leave them: a cp1252 note an earlier append gave the text it finds is refused too, one an
earlier write_note made UTF-8 is not. Each problem is the run's error for that step (code,
details, hint; its message inside), the steps called one by one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.tools.sessions.test_plan_refusals_told import _step, assert_told, first_refused

FILES = {
    "A.md": "# A\n\nCafé au lait\n",  # UTF-8: takes the emoji
    "Sub/Latin.md": "# Café\r\n".encode("cp1252"),
    "Notes/Plain.md": "# Plaîn\r\n".encode("cp1252"),
}
EMOJI = {"find": "Café", "replace": "🎉", "dry_run": False}

PLANS: dict[str, list[dict[str, Any]]] = {
    "a folder": [_step("r", "replace_text", folder="Sub", **EMOJI)],
    "the whole vault": [_step("r", "replace_text", **EMOJI)],
    "the whole vault, its own dry run": [_step("r", "replace_text", find="Café", replace="🎉")],
    "a bare name": [_step("r", "replace_text", path="Latin", **EMOJI)],
    "a text an earlier step put there": [
        _step("a", "append_note", path="Notes/Plain.md", content="Thé\r\n"),
        _step("r", "replace_text", find="Thé", replace="🎉", dry_run=False),
    ],
    "a text an earlier step put there, its folder": [
        _step("a", "append_note", path="Notes/Plain.md", content="Thé\r\n"),
        _step("r", "replace_text", folder="Notes/", find="Thé", replace="🎉", dry_run=False),
    ],
    "a text an earlier step put there, the note named": [
        _step("a", "append_note", path="Notes/Plain.md", content="Thé\r\n"),
        _step("r", "replace_text", path="Plain", find="Thé", replace="🎉", dry_run=False),
    ],
}  # fmt: skip

VALID: dict[str, list[dict[str, Any]]] = {
    "the note written whole first (UTF-8)": [
        _step("w", "write_note", path="Sub/Latin.md", content="# Café\n", mode="overwrite"),
        _step("r", "replace_text", folder="Sub", **EMOJI),
    ],
    "a replacement cp1252 holds": [_step("r", "replace_text", find="Café", replace="Tea", dry_run=False)],
}  # fmt: skip


async def test_a_replace_text_a_note_s_encoding_refuses_is_foreseen_as_the_run(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(FILES), throttle={"enabled": False}) as vg:  # many bulk calls in a row
        await vg.indexed()
        start = vg.snapshot()
        told: dict[str, dict[str, Any]] = {}
        for name, steps in PLANS.items():
            checked = await vg.ok("validate_plan", plan={"goal": name, "steps": steps})
            assert len(checked["problems"]) == 1, (name, checked["problems"])
            told[name] = checked["problems"][0]
        for name, steps in VALID.items():
            checked = await vg.ok("validate_plan", plan={"goal": name, "steps": steps})
            assert checked["valid"], (name, checked["problems"])
        assert vg.snapshot() == start  # nothing ran
        for name, steps in PLANS.items():
            ran = await first_refused(vg, steps)
            assert ran is not None, name
            assert_told(told[name], *ran)
            assert ran[1]["details"]["reason"] == "unrepresentable", ran
            await vg.settled()
    assert told["a folder"]["details"]["path"] == "Sub/Latin.md"
    assert told["a text an earlier step put there"]["details"]["path"] == "Notes/Plain.md"
