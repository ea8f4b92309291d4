"""A dry-run vault over HTTP with the SDK client answers a patch of a heading the note lacks (and a
task status on a line holding no task) with the call's own error, as validate_plan reports it;
before, its preview promised a change of the note. A patch of a heading it has previews as one.
validate_plan's problem for that patch carries the error's message, details and hint (E4 s84). An
add_tags without a heading (the frontmatter's) on a cp1252 note is refused as the run refuses it,
by validate_plan too: an emoji is no tag (the preview promised the change before E4 s84), a tag
cp1252 cannot hold ('日本') is `unrepresentable` (E3 s83 made the preview ask that). A replace_text over
the whole vault or a folder of an emoji into the cp1252 note: validate_plan said valid, the call
refuses it (`unrepresentable`); its problem is now that error (E6 s85). A create of a case twin
('projects/n' beside 'Projects') is the call's already_exists, where the preview promised the
folder (E8 s86)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok

NOTE = "# Home\n\n## Goals\n\n- [ ] Ship it\nplain line\n"


async def test_a_dry_run_vault_answers_an_edit_the_note_refuses_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({"Home.md": NOTE, "Latin.md": "# Café\r\n".encode("cp1252"), "Projects/P.md": "p\n"})
    before = snapshot(root)
    dry = [{"id": "main", "path": root, "write_mode": "dry-run"}]
    async with e2e(root, vaults=dry) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        refused = await error(c, "patch_note", path="Home#Missing", content="x")
        assert refused["code"] == "validation_error" and refused["details"]["reason"] == "not_found", refused
        task = await error(c, "set_task_status", path="Home", line=6, status="done", expected_text="plain line")
        assert task["details"]["reason"] == "not_a_task", task
        plan = {
            "goal": "g",
            "steps": [{"id": "p", "tool": "patch_note", "args": {"path": "Home#Missing", "content": "x"}}],
        }
        [problem] = (await ok(c, "validate_plan", plan=plan))["problems"]
        assert (problem["details"], problem["hint"]) == (refused["details"], refused["hint"]), problem
        assert refused["message"] in problem["message"] and "Goals" in problem["message"], problem
        emoji = await error(c, "add_tags", path="Latin", tags=["🎉"])
        assert (emoji["code"], emoji["details"]) == ("validation_error", {"field": "tags", "tag": "🎉"}), emoji
        lacking = await error(c, "add_tags", path="Latin", tags=["日本"])
        assert {k: lacking["details"][k] for k in ("reason", "path", "encoding", "codepoint")} == {
            "reason": "unrepresentable",
            "path": "Latin.md",
            "encoding": "cp1252",
            "codepoint": "U+65E5",
        }, lacking
        for tag, refused_tag in (("🎉", emoji), ("日本", lacking)):
            step = {"id": "t", "tool": "add_tags", "args": {"path": "Latin.md", "tags": [tag]}}
            [problem] = (await ok(c, "validate_plan", plan={"goal": "g", "steps": [step]}))["problems"]
            assert (problem["details"], problem["hint"]) == (refused_tag["details"], refused_tag["hint"]), problem
        replacing = await error(c, "replace_text", find="Café", replace="🎉")  # its dry run: the whole vault
        assert (replacing["code"], replacing["details"]["path"]) == ("validation_error", "Latin.md"), replacing
        for scope in ({}, {"folder": "/"}):
            args = {"find": "Café", "replace": "🎉", "dry_run": False, **scope}
            step = {"id": "r", "tool": "replace_text", "args": args}
            [problem] = (await ok(c, "validate_plan", plan={"goal": "g", "steps": [step]}))["problems"]
            assert (problem["code"], problem["details"], problem["hint"]) == (
                replacing["code"],
                replacing["details"],
                replacing["hint"],
            ), problem
            assert replacing["message"] in problem["message"], problem
        previewed = await ok(c, "patch_note", path="Home#Goals", content="x")
        assert previewed["dry_run"] is True and previewed["effects"]["files_modified"] == ["Home.md"]
        twin = await error(c, "create_note", path="projects/n", content="x")  # a case twin of Projects (E8 s86)
        assert (twin["code"], twin["details"]) == ("already_exists", {"path": "Projects", "new_path": "projects/n.md"})
    assert snapshot(root) == before
