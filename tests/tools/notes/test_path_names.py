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
