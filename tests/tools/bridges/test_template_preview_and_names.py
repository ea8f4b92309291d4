"""execute_template and trigger_quickadd: what a human confirming them is shown, and the note names
execute_template refuses (left by B2 s84).

- The confirmation showed the raw arguments (`{"template":"Meeting",...}`): not the template file
  the name resolved to, nor the note Obsidian would create. Templater asks Obsidian for
  `getAvailablePath(folder/filename, "md")`: a note of that name already there is kept and the
  new one is `Kickoff 1.md`. The preview now names the template file, the note as it will be
  named (and the one kept), a folder made for it, and the opening; what the confirmed call then
  made (the stand-in makes notes as Obsidian does) is checked against it.
- A `filename` with ':' (Obsidian's `vault.create` throws), '#', '^', '[', ']', '|' (created, but
  no link reaches it) or a character Windows refuses went to Templater as given. It is now
  `path_invalid` with a hint (`details.field`), before anyone is asked or anything is sent, and
  validate_plan tells it before any step runs.

- trigger_quickadd's confirmation, the raw arguments too, now says the choice's kind (a Macro runs
  scripts), its group and the values given, and that the notes it writes are in the choice's own
  settings, which vaultgate cannot read (the companion lists only id, name, type and parent).

Through the dispatch chain against the Local REST API stand-in (tests/tools/bridges/standin.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the autouse fixture that sets the API key


async def test_the_confirmation_names_the_template_file_and_the_note_as_obsidian_will_make_it(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    files = {**FILES, "Projects/Kickoff.md": "# Kept\n"}
    async with bridged(make_vault, tmp_path, files=files) as (vg, obsidian):
        obsidian.vault_root = vg.root  # Templater makes its notes in the vault, as Obsidian does
        previews: list[str] = []
        for args, template, made in [
            ({"template": "Meeting", "folder": "Projects", "filename": "Kickoff"}, "Meeting", "Projects/Kickoff 1.md"),
            (
                {"template": "[[Daily]]", "folder": "Log/2026", "filename": "Q1", "open": True},
                "Daily",
                "Log/2026/Q1.md",
            ),
        ]:
            asked = await vg.err("execute_template", "elicit_required", **args)
            previews.append(preview := asked["details"]["preview"])
            assert f"runs the template Templates/{template}.md" in preview, preview
            assert f"creates the note {made}" in preview, preview
            out = await vg.confirmed("execute_template", **args)
            assert out["path"] == made and out["template"] == f"Templates/{template}.md"  # what ran is what was shown
        kept, opened = previews
        assert "A note Projects/Kickoff.md exists already: it is left as it is" in kept, kept
        assert "opens it" not in kept and "folder" not in kept.split("\n", 1)[1], kept
        assert "then opens it in Obsidian" in opened and "The folder Log/2026 is created" in opened, opened
        assert (vg.root / "Projects/Kickoff.md").read_text() == "# Kept\n"
        assert (vg.root / "Projects/Kickoff 1.md").read_text() == "# Meeting\n"
    assert [c["filename"] for c in obsidian.created] == ["Kickoff", "Q1"]


async def test_a_name_obsidian_cannot_make_or_link_is_refused_before_anything_is_sent(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        for name in ["Time: 10", "C# tips", "a|b", "a^b", "[draft]", "why?", "A*"]:
            err = await vg.err("execute_template", "path_invalid", template="Meeting", folder="Projects", filename=name)
            assert err["details"]["field"] == "filename" and err["hint"], err
        err = await vg.err("execute_template", "path_invalid", template="Meeting", folder="New#Folder", filename="x")
        assert err["details"]["field"] == "folder", err
        assert await vg.app.state.fetchall("SELECT tool FROM confirmation_requests", []) == []
        step = {"id": "s1", "tool": "execute_template", "args": {"template": "Meeting", "filename": "C# tips"}}
        checked = await vg.ok("validate_plan", plan={"goal": "make", "steps": [step]})
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("s1", "path_invalid")], checked
    assert obsidian.sent == [] and obsidian.created == []


async def test_the_confirmation_of_a_quickadd_run_says_what_kind_of_choice_runs(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        asked = await vg.err("trigger_quickadd", "elicit_required", choice="New project", variables={"title": "Q1"})
        preview = asked["details"]["preview"]
        assert "runs its Template choice 'New project' (in 'Tools'); a Template choice makes a note" in preview, preview
        assert "with the values title = 'Q1'." in preview and "cannot read" in preview, preview
        bare = (await vg.err("trigger_quickadd", "elicit_required", choice="Log"))["details"]["preview"]
        assert "runs its Capture choice 'Log'; a Capture choice adds text to a note, with no values" in bare, bare
        await vg.confirmed("trigger_quickadd", choice="New project", variables={"title": "Q1"})
    assert obsidian.quickadd_runs == [{"choice": "New project", "variables": {"title": "Q1"}}]
