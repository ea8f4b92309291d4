"""Names at the vault boundary through the dispatch chain: an overlong-UTF-8 lookalike of `../` is
refused like the other lookalikes, and notes named like Windows devices that exist on a Linux
or macOS vault are read and edited, while creating such a name is refused unless the vault says
otherwise (`[writes] refuse_device_names`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started

DEVICE_NOTES = {"Con/Keynote ideas.md": "# Keynote\n\n## Ideas\n\n- one\n", "Aux.md": "# Aux\n"}


@pytest.mark.parametrize(
    "path", ["\u00c0\u00ae\u00c0\u00ae/canary.md", "Notes/\u00c0\u00ae\u00c0\u00ae/\u00c0\u00ae\u00c0\u00ae/x.md"]
)
async def test_an_overlong_utf8_lookalike_of_dot_dot_is_refused_by_every_writer(
    make_vault: Callable[..., Path], path: str
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root.parent)
    async with started(root) as vg:
        await vg.err("create_note", "path_invalid", path=path, content="canary")
        error = await vg.err("write_note", "path_invalid", path=path, content="canary", mode="create")
        assert "overlong" in error["details"]["reason"]
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == {k: v for k, v in before.items() if ".vaultgate" not in k}


async def test_existing_notes_named_like_windows_devices_are_read_and_edited(make_vault: Callable[..., Path]) -> None:
    root = make_vault(DEVICE_NOTES)
    async with started(root) as vg:
        read = await vg.ok("read_note", path="Con/Keynote ideas.md")
        assert read["content"].startswith("# Keynote")
        await vg.ok("append_note", path="Con/Keynote ideas.md", content="- appended")
        await vg.ok(
            "patch_note", path="Con/Keynote ideas", heading=["Keynote", "Ideas"], position="append", content="- two"
        )
        await vg.ok("append_note", path="Aux", content="more")
        assert (await vg.ok("read_note", path="Aux.md"))["content"].endswith("more")
        listed = await vg.ok("list_notes", limit=10)
        assert {i["path"] for i in listed["items"]} >= set(DEVICE_NOTES)
    text = (root / "Con/Keynote ideas.md").read_text(encoding="utf-8")
    assert "- appended" in text and "- two" in text


async def test_creating_a_windows_device_name_is_refused_unless_the_vault_allows_it(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(DEVICE_NOTES)
    async with started(root) as vg:
        error = await vg.err("create_note", "path_invalid", path="Nul.md", content="x")
        assert error["details"]["reason"] == "reserved device name"
        await vg.err("create_note", "path_invalid", path="Lpt1/Plan.md", content="x")  # a new folder too
        await vg.ok("create_note", path="Con/Another idea.md", content="x")  # the folder exists already
    assert not (root / "Nul.md").exists() and not (root / "Lpt1").exists()
    async with started(root, writes={"refuse_device_names": False}) as vg:
        await vg.ok("create_note", path="Nul.md", content="x")
        await vg.ok("create_folder", path="Com1")
    assert (root / "Nul.md").read_text(encoding="utf-8") == "x" and (root / "Com1").is_dir()


@pytest.mark.parametrize("path", ["Inbox/", "Inbox/ ", "Inbox//", "[[Inbox/]]"])
async def test_a_path_ending_with_a_slash_names_no_note(make_vault: Callable[..., Path], path: str) -> None:
    root = make_vault({"Inbox/Alpha.md": "# Alpha\n"})
    before = snapshot(root.parent)
    async with started(root) as vg:
        error = await vg.err("create_note", "path_invalid", path=path, content="x")
        assert error["details"]["reason"] == "no note name"
        await vg.err("write_note", "path_invalid", path=path, content="x", mode="create")
        await vg.err("append_note", "path_invalid", path=path, content="x")
        await vg.err("read_note", "path_invalid", path=path)
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == {k: v for k, v in before.items() if ".vaultgate" not in k}  # no Inbox.md


@pytest.mark.parametrize("path", ["Inbox/.secretplan", "Inbox/.md", ".plan", "Inbox/.drafts/Plan"])
async def test_names_starting_with_a_dot_are_refused_as_the_index_skips_them(
    make_vault: Callable[..., Path], path: str
) -> None:
    root = make_vault({"Inbox/Alpha.md": "# Alpha\n", "Inbox/.old.md": "quixotic walrus\n"})
    before = snapshot(root.parent)
    async with started(root) as vg:
        error = await vg.err("create_note", "path_invalid", path=path, content="quixotic walrus plan")
        assert "'.'" in error["details"]["reason"] and error["hint"].startswith("Names starting with '.'")
        await vg.err("write_note", "path_invalid", path=path, content="x", mode="create")
        await vg.err("move_note", "path_invalid", path="Inbox/Alpha", new_path=path)
        await vg.err("copy_note", "path_invalid", path="Inbox/Alpha", new_path=path)
        await vg.err("read_note", "path_invalid", path="Inbox/.old")  # on disk, but not a note of the vault
        assert (await vg.ok("search_text", query="quixotic walrus"))["items"] == []
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == {k: v for k, v in before.items() if ".vaultgate" not in k}


LINKED = {"P/Plan.md": "# Plan\n", "P/Src.md": "see [[Plan]]\n", "U/smile#1.md": "old #1\n", "P/c^d.md": "caret\n"}


@pytest.mark.parametrize("name", ["Plan#2", "a^b", "a[b]", "x]y", "[draft"])
async def test_link_characters_are_refused_in_every_new_file_and_folder_name(
    make_vault: Callable[..., Path], name: str
) -> None:
    """`[[Plan#2]]` is heading "2" of "Plan": a note named so cannot be linked, and a move to such a
    name broke every link to the note (T1 s62 #12). Every writer that makes a new name refuses it."""
    root = make_vault(LINKED)
    before = snapshot(root.parent)
    async with started(root) as vg:
        calls = [
            ("create_note", {"path": f"N/{name}", "content": "x"}),
            ("write_note", {"path": f"N/{name}.md", "content": "x", "mode": "create"}),
            ("create_folder", {"path": f"N/{name}"}),
            ("create_note", {"path": f"{name}/inner", "content": "x"}),  # a new folder on the way
            ("copy_note", {"path": "P/Plan", "new_path": f"P/{name}"}),
            ("move_note", {"path": "P/Plan", "new_path": f"P/{name}"}),
            ("rename_note", {"path": "P/Plan", "new_path": f"P/{name}"}),
            ("move_note", {"path": "P", "new_path": name}),  # a folder
            (
                "bulk_create_notes",
                {"notes": [{"path": "N/fine", "content": "x"}, {"path": f"N/{name}", "content": "x"}]},
            ),
        ]
        for tool, args in calls:
            result = await vg.call(tool, **args)
            assert result.is_error and result.structured is not None, (tool, args)
            error = result.structured["error"]
            if error["code"] == "path_invalid" and error["details"].get("reason") == "reserved character":
                continue
            # '#' after a note name is a heading to a note address: refused before the name check
            assert name.startswith("Plan#") and tool in ("create_note", "write_note", "bulk_create_notes"), (
                tool,
                error,
            )
            assert error["details"]["reason"] == "section_not_supported", (tool, error)
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == {k: v for k, v in before.items() if ".vaultgate" not in k}


async def test_existing_notes_with_link_characters_are_read_edited_and_deleted(make_vault: Callable[..., Path]) -> None:
    root = make_vault(LINKED)
    async with started(root) as vg:
        assert (await vg.ok("read_note", path="U/smile#1.md"))["content"] == "old #1\n"
        await vg.ok("append_note", path="U/smile#1.md", content="more")
        await vg.ok("write_note", path="P/c^d.md", content="new caret\n", mode="overwrite", expected_etag=(
            await vg.ok("read_note", path="P/c^d.md"))["etag"])  # fmt: skip
        await vg.ok("delete_note", path="U/smile#1.md")
    assert (root / "P/c^d.md").read_text(encoding="utf-8") == "new caret\n"
    assert (root / ".trash/U/smile#1.md").read_text(encoding="utf-8") == "old #1\nmore"


async def test_a_note_already_named_with_a_link_character_moves_under_its_own_name(
    make_vault: Callable[..., Path],
) -> None:
    """A note Obsidian let a person name `Plan#2.md` moves to another folder, or to another letter
    case, as it is (no new name); a new name with such a character is still refused (R4 s62 F1)."""
    async with started(make_vault({"P/Plan#2.md": "# two\n", "P/plan[x].md": "# x\n"})) as vg:
        await vg.indexed()
        await vg.confirmed("move_note", path="P/Plan#2.md", new_path="Archive/Plan#2.md")
        await vg.ok("move_note", path="P/plan[x].md", new_path="P/Plan[x].md")
        assert vg.read("Archive/Plan#2.md") == "# two\n" and vg.read("P/Plan[x].md") == "# x\n"
        error = await vg.err("move_note", "path_invalid", path="Archive/Plan#2.md", new_path="Archive/Plan#3.md")
        assert error["details"]["reason"] == "reserved character"
        plan = {
            "goal": "g",
            "steps": [
                {"id": "m", "tool": "move_note", "args": {"path": "Archive/Plan#2.md", "new_path": "P/Plan#2.md"}}
            ],
        }
        assert (await vg.ok("validate_plan", plan=plan))["valid"]


async def test_notes_in_a_folder_named_with_a_hash_are_addressed_by_their_path(make_vault: Callable[..., Path]) -> None:
    """`Home#Contribute/new.md`, where the folder `Home#Contribute` exists, is a note in that folder,
    not section 'Contribute/new.md' of `Home`: a path naming what is on disk wins over the section
    reading (review R4 s62 F8), for a new note there too. A bracketed link is still a section."""
    root = make_vault(
        {"Home.md": "# Home\n\n## Contribute\n\nhelp\n", "Home#Contribute/a.md": "# a\n", "Inbox/Plan#2.md": "# two\n"}
    )
    async with started(root) as vg:
        await vg.indexed()
        assert (await vg.ok("create_note", path="Home#Contribute/new.md", content="new\n"))["path"] == (
            "Home#Contribute/new.md"
        )
        await vg.ok("write_note", path="Home#Contribute/w", content="w\n", mode="create")
        assert vg.read("Home#Contribute/new.md") == "new\n" and vg.read("Home#Contribute/w.md") == "w\n"
        assert (await vg.ok("read_note", path="Home#Contribute/a"))["content"] == "# a\n"
        assert (await vg.ok("read_note", path="Inbox/Plan#2"))["path"] == "Inbox/Plan#2.md"
        folder = await vg.err("read_note", "not_a_note", path="Home#Contribute")  # the folder, not Home's section
        assert folder["details"]["kind"] == "folder"
        assert (await vg.ok("read_note", path="[[Home#Contribute]]"))["content"].startswith("## Contribute")
        await vg.confirmed("move_note", path="Home#Contribute/a", new_path="Inbox/a")
        await vg.ok("delete_note", path="Home#Contribute/w")
        await vg.ok("move_note", path="Home#Contribute", new_path="Contrib")
    assert (root / "Inbox/a.md").read_text(encoding="utf-8") == "# a\n"
    assert (root / ".trash/Home#Contribute/w.md").read_text(encoding="utf-8") == "w\n"
    assert (root / "Contrib/new.md").read_text(encoding="utf-8") == "new\n" and not (root / "Home#Contribute").exists()
