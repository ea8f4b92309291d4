"""A dry-run vault's preview of execute_template and trigger_quickadd says what their
confirmation says (left by B3 s85).

The preview said only `run (1): call: execute_template`: not the template file the address
resolved to, nor the note Templater would make (`Projects/Kickoff 1.md` when `Projects/Kickoff.md`
is there). It now adds the confirmation's words (`template_note.template_preview`, the same
function), and for trigger_quickadd the confirmation's words without the choice's kind, since a
dry-run preview asks no plugin. A name Obsidian cannot make is `path_invalid` there as in the
call. Nothing is sent to Obsidian and nobody is asked.

Through the dispatch chain against the Local REST API stand-in (tests/tools/bridges/standin.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.test_bridge_refusals_before_running import api_key, asked, vault

__all__ = ["api_key"]  # the fixture that puts the key in the environment


async def test_a_dry_run_preview_of_a_plugin_call_says_what_its_confirmation_says(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path, write_mode="dry-run") as (vg, obsidian):
        (vg.root / "Projects" / "Kickoff.md").write_text("# Kept\n", encoding="utf-8")
        out = await vg.ok("execute_template", template="Meeting", folder="Projects", filename="Kickoff", open=True)
        summary = out["summary"]
        assert out["dry_run"] is True and summary.startswith("dry-run mode, nothing changed: execute_template"), out
        assert "runs the template Templates/Meeting.md" in summary, summary
        assert "creates the note Projects/Kickoff 1.md, then opens it in Obsidian." in summary, summary
        assert "A note Projects/Kickoff.md exists already: it is left as it is" in summary, summary
        made = await vg.ok("execute_template", template="[[Daily]]", folder="Log/2026", filename="Q1")
        assert "creates the note Log/2026/Q1.md." in made["summary"], made
        assert "The folder Log/2026 is created for it." in made["summary"], made
        err = await vg.err(
            "execute_template", "path_invalid", template="Meeting", folder="Projects", filename="Time: 10"
        )
        assert err["details"]["field"] == "filename" and err["hint"], err

        quick = (await vg.ok("trigger_quickadd", choice="Log", variables={"mood": "good"}))["summary"]
        assert "runs its QuickAdd choice 'Log', with the values mood = 'good'." in quick, quick
        assert "Which notes it writes is set in the choice's settings in QuickAdd" in quick, quick
        assert await asked(vg) == []
    assert obsidian.sent == [] and obsidian.created == []  # no plugin asked, nothing made
    assert not (vg.root / "Projects" / "Kickoff 1.md").exists() and not (vg.root / "Log").exists()
