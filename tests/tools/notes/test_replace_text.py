"""replace_text through the chain: find and replace in note bodies, previewed, confirmed, all or nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

FILES: dict[str, str | bytes] = {
    "Projects/Alpha.md": (
        "---\nowner: Acme Corp\n---\n# Alpha\n\nAcme Corp ships. acme corp too.\nAcmeCorporation stays.\n"
    ),
    "Projects/Beta.md": "# Beta\r\n\r\nBuilt for Acme Corp.\r\n",
    "Notes/Gamma.md": "# Gamma\n\nNo client here.\n",
    "Notes/Delta.md": "# Delta\n\nAcme Corp in notes. Call 555-1234 or 555-9876.\n",
    "Private/Secret.md": "Acme Corp secret.\n",
}
NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}


@pytest.mark.covers("replace_text", "success")
async def test_previews_then_replaces_in_bodies_only(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        before = vg.snapshot()
        dry = await vg.ok("replace_text", find="Acme Corp", replace="Acme Inc")
        assert dry["dry_run"] is True and vg.snapshot() == before
        assert [i["path"] for i in dry["items"]] == ["Notes/Delta.md", "Projects/Alpha.md", "Projects/Beta.md"]
        assert (dry["files_changed"], dry["replacements"], dry["lines_changed"]) == (3, 3, 3)
        alpha = next(i for i in dry["items"] if i["path"] == "Projects/Alpha.md")
        assert [(c["line"], c["after"]) for c in alpha["changes"]] == [(6, "Acme Inc ships. acme corp too.")]
        done = await vg.confirmed("replace_text", find="Acme Corp", replace="Acme Inc", dry_run=False)
        assert (done["dry_run"], done["files_changed"], done["replacements"]) == (False, 3, 3)
        # the frontmatter, another letter case, a longer word and an unreadable note are left as they were
        assert vg.read("Projects/Alpha.md") == FILES["Projects/Alpha.md"].replace(  # type: ignore[union-attr]
            "Acme Corp ships", "Acme Inc ships"
        )
        assert (
            vg.root / "Projects/Beta.md"
        ).read_bytes() == b"# Beta\r\n\r\nBuilt for Acme Inc.\r\n"  # its line ends kept
        assert vg.read("Private/Secret.md") == FILES["Private/Secret.md"]
        assert vg.read("Notes/Gamma.md") == FILES["Notes/Gamma.md"]
        await vg.settled()
        found = await vg.ok("search_text", query='"Acme Inc"')
        assert {i["path"] for i in found["items"]} == {"Notes/Delta.md", "Projects/Alpha.md", "Projects/Beta.md"}


async def test_case_words_regex_groups_and_scopes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        any_case = await vg.ok("replace_text", find="acme corp", replace="X", ignore_case=True, path="Alpha")
        assert any_case["replacements"] == 2 and [i["path"] for i in any_case["items"]] == ["Projects/Alpha.md"]
        word = await vg.ok("replace_text", find="Acme", replace="Y", whole_word=True, folder="Projects")
        assert word["replacements"] == 2  # not AcmeCorporation
        phones = r"(\d{3})-(\d{4})"
        grouped = await vg.ok("replace_text", find=phones, replace=r"(\1) \2", regex=True, folder="Notes")
        assert [c["after"] for i in grouped["items"] for c in i["changes"]] == [
            "Acme Corp in notes. Call (555) 1234 or (555) 9876."
        ]
        literal = await vg.confirmed("replace_text", find="555-1234", replace=r"\1 $0", path="[[Delta]]", dry_run=False)
        assert literal["replacements"] == 1 and r"Call \1 $0 or" in vg.read("Notes/Delta.md")
        # a page of the preview at a time
        first = await vg.ok("replace_text", find="Acme", replace="Z", limit=1)
        rest = await vg.ok("replace_text", find="Acme", replace="Z", limit=5, cursor=first["next_cursor"])
        assert len(first["items"]) == 1 and first["truncated"] and first["files_changed"] == 3
        assert [i["path"] for i in first["items"] + rest["items"]] == [
            "Notes/Delta.md", "Projects/Alpha.md", "Projects/Beta.md",
        ]  # fmt: skip
        nothing = await vg.ok("replace_text", find="no such words", replace="x")
        assert (nothing["files_changed"], nothing["items"]) == (0, [])


@pytest.mark.covers("replace_text", "failure")
async def test_bad_input_changes_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        before = vg.snapshot()
        bad = await vg.err("replace_text", "query_syntax_error", find="(unclosed", replace="x", regex=True)
        assert "backslash" in bad["hint"]
        group = await vg.err(
            "replace_text", "query_syntax_error", find="Acme", replace=r"\3", regex=True, dry_run=False
        )
        assert group["details"]["field"] == "replace"
        await vg.err("replace_text", "validation_error", find="Acme", replace="x", path="Alpha", folder="Notes")
        await vg.err("replace_text", "note_not_found", find="Acme", replace="x", path="Nobody")
        await vg.err("replace_text", "acl_denied", find="Acme", replace="x", path="Private/Secret.md")
        await vg.err("replace_text", "validation_error", find="", replace="x")
        await vg.err("replace_text", "validation_error", find="Acme", replace="x", dry_run=False, cursor="abc")
        assert vg.snapshot() == before


async def test_a_note_edited_since_the_preview_needs_a_new_confirmation(make_vault: Callable[..., Path]) -> None:
    """The confirmation is of the preview's changes: a note changed after it was shown makes the
    approval stale (asked again with the new lines, nothing written), and the run replaces in the
    note's new text, never writing back the preview's."""
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        args = {"find": "Acme Corp", "replace": "Acme Inc", "dry_run": False}
        token = await vg.token_for("replace_text", **args)
        (vg.root / "Notes/Delta.md").write_text("# Delta\n\nAcme Corp moved. New line kept.\n", encoding="utf-8")
        await vg.settled()
        before = vg.snapshot()
        stale = await vg.err("replace_text", "elicit_required", **args, elicit_token=token)
        assert "Acme Inc moved. New line kept." in stale["details"]["preview"] and vg.snapshot() == before
        done = await vg.confirmed("replace_text", **args)
        assert done["files_changed"] == 3
        assert vg.read("Notes/Delta.md") == "# Delta\n\nAcme Inc moved. New line kept.\n"


async def test_a_plan_replaces_in_the_note_an_earlier_step_made_and_undoes_it(make_vault: Callable[..., Path]) -> None:
    """A plan's replace_text runs over the notes as its earlier steps left them (the new note is
    in the index by then); its preview lists the notes its own dry run finds (beside the note the
    plan makes), as for rename_tag, and the confirmation names every file the run changes; undo
    puts every file back. (It was a `bulk_changes` entry, files known only at run time, until
    replace_text steps were previewed with their own dry run.)"""
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        before = vg.snapshot()
        made = "Acme Corp, today.\n"
        swap = {"find": "Acme Corp", "replace": "Acme Inc", "dry_run": False}
        plan = {
            "goal": "rename the client",
            "steps": [
                {"id": "new", "tool": "create_note", "args": {"path": "Clients/Acme", "content": made}},
                {"id": "swap", "tool": "replace_text", "args": swap},
            ],
        }  # fmt: skip
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"] and checked["effects"]["bulk_changes"] == [], checked["effects"]
        assert checked["effects"]["files_created"] == ["Clients/Acme.md"], checked["effects"]
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert asked["details"]["files"] == sorted(vg.changed_since(before)), asked["details"]
        assert sorted(checked["effects"]["files_modified"]) == sorted(vg.changed_since(before) - {"Clients/Acme.md"})
        assert vg.read("Clients/Acme.md") == "Acme Inc, today.\n"
        assert "Acme Inc ships" in vg.read("Projects/Alpha.md") and "Acme Corp" not in vg.read("Notes/Delta.md")
        await vg.confirmed("undo_last_plan", run_id=run["run_id"])
        assert vg.snapshot() == before


async def test_more_notes_than_one_call_may_change_is_refused_whole(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.tools.notes import replace

    monkeypatch.setattr(replace, "MAX_FILES", 2)
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        before = vg.snapshot()
        many = await vg.err("replace_text", "validation_error", find="Acme", replace="x", dry_run=False)
        assert many["details"]["max_files"] == 2 and "folder" in many["hint"]
        assert vg.snapshot() == before
        narrowed = await vg.ok("replace_text", find="Acme", replace="x", folder="Projects")
        assert narrowed["files_changed"] == 2


async def test_line_ends_and_line_anchors_in_crlf_and_mixed_notes(make_vault: Callable[..., Path]) -> None:
    """The pattern sees the note's lines joined by LF, as every reader does: `$` ends a line and
    `\\n` is a line end in a CRLF note too; each line keeps its own end. Before, `$` matched
    between a CR and its LF, so appending at line ends wrote the text inside the line end."""
    files: dict[str, str | bytes] = {
        "Win.md": b"# Win\r\n\r\n- one\r\n- two\r\n",
        "Mixed.md": b"# Mixed\n\n- one\r\n- two\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        args = {"find": r"^(- \w+)$", "replace": r"\1 #done", "regex": True, "dry_run": False}
        done = await vg.confirmed("replace_text", **args)
        assert done["replacements"] == 4
        assert (vg.root / "Win.md").read_bytes() == b"# Win\r\n\r\n- one #done\r\n- two #done\r\n"
        assert (vg.root / "Mixed.md").read_bytes() == b"# Mixed\n\n- one #done\r\n- two #done\n"
        joined = await vg.confirmed(
            "replace_text", find="#done\n- two", replace="#done\n- 2", path="Win", dry_run=False
        )
        assert joined["replacements"] == 1
        assert (vg.root / "Win.md").read_bytes() == b"# Win\r\n\r\n- one #done\r\n- 2 #done\r\n"
