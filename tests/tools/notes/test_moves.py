"""move_note / rename_note: every link form follows, all or nothing, previews first (rewrite_links,
the graph domain's repair of links after an outside move, is in tests/tools/graph/test_rewrite_links.py)."""

from __future__ import annotations

import errno
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.notes.moves import MoveIn, _confirm_move
from tests.conftest import Harness, started
from tests.tools.helpers import tool_context

VAULT = {
    "Projects/Plan.md": "# Plan\n\n## Goals\n\nShip. ^goal-1\n\nUp: [home](../Home.md) and [[Home]].\n",
    "Home.md": (
        "# Home\n\n"
        "Bare [[Plan]], aliased [[Plan|the plan]], heading [[Projects/Plan#Goals]].\n"
        "Block ![[Plan#^goal-1]] and md [p](Projects/Plan.md#Goals).\n"
        "Untouched [[Other]] and `[[Plan]]`.\n"
    ),
    "Daily/Day.md": "Relative [r](../Projects/Plan.md) and encoded [e](Projects/Plan.md).\n",
    "Other.md": "# Other\n",
}


@pytest.fixture
async def vault(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT)) as harness:
        await harness.indexed()
        yield harness


async def _resolved_backlinks(vg: Harness, path: str) -> list[tuple[str, int]]:
    out = await vg.ok("get_backlinks", path=path, limit=100)
    return [(i["path"], i["line"]) for i in out["items"]]


@pytest.mark.covers("move_note", "success")
async def test_move_rewrites_every_link_form_and_the_index_follows(vault: Harness) -> None:
    before_links = await _resolved_backlinks(vault, "Projects/Plan.md")
    out = await vault.confirmed("move_note", path="Projects/Plan", new_path="Work/Road Map")
    assert out["path"] == "Work/Road Map.md" and out["dry_run"] is False
    assert out["moved"] == [{"old_path": "Projects/Plan.md", "new_path": "Work/Road Map.md"}]
    assert not (vault.root / "Projects/Plan.md").exists()
    home = vault.read("Home.md")
    assert "Bare [[Road Map]], aliased [[Road Map|the plan]], heading [[Work/Road Map#Goals]]." in home
    assert "Block ![[Road Map#^goal-1]] and md [p](Work/Road%20Map.md#Goals)." in home
    assert "Untouched [[Other]] and `[[Plan]]`." in home
    assert vault.read("Daily/Day.md") == ("Relative [r](../Work/Road%20Map.md) and encoded [e](Work/Road%20Map.md).\n")
    # The moved note's own relative link was fixed; its bare link still resolves as is.
    assert "Up: [home](../Home.md) and [[Home]]." in vault.read("Work/Road Map.md")
    after_links = await _resolved_backlinks(vault, "Work/Road Map.md")
    assert len(after_links) == len(before_links)
    assert (await vault.ok("find_broken_links", limit=100))["items"] == []


async def test_bare_names_become_paths_when_the_move_makes_them_ambiguous(vault: Harness) -> None:
    # After Other -> Work/Plan two notes are called 'Plan': both kinds of bare link need a path.
    await vault.confirmed("rename_note", path="Other.md", new_path="Work/Plan")
    home = vault.read("Home.md")
    assert "Untouched [[Work/Plan]]" in home
    assert "Bare [[Projects/Plan]], aliased [[Projects/Plan|the plan]]" in home
    assert len(await _resolved_backlinks(vault, "Projects/Plan.md")) == 7


async def test_bare_name_stays_bare_when_still_unique(vault: Harness) -> None:
    out = await vault.confirmed("move_note", path="Other", new_path="Deep/Er/Other.md")
    assert "Untouched [[Other]]" in vault.read("Home.md")
    assert out["notes_rewritten"] == 0


async def test_dry_run_lists_files_and_lines_and_changes_nothing(vault: Harness) -> None:
    before = vault.snapshot()
    out = await vault.ok("move_note", path="Projects/Plan.md", new_path="Work/Deep/Plan.md", dry_run=True)
    assert vault.snapshot() == before
    assert out["dry_run"] is True
    by_path = {i["path"]: i for i in out["items"]}
    assert set(by_path) == {"Home.md", "Daily/Day.md", "Projects/Plan.md"}
    assert [c["line"] for c in by_path["Home.md"]["changes"]] == [3, 4]
    assert by_path["Projects/Plan.md"]["new_path"] == "Work/Deep/Plan.md"
    assert by_path["Projects/Plan.md"]["changes"][0]["after"] == "Up: [home](../../Home.md) and [[Home]]."
    assert by_path["Daily/Day.md"]["changes"][0]["after"] == (
        "Relative [r](../Work/Deep/Plan.md) and encoded [e](Work/Deep/Plan.md)."
    )


@pytest.mark.covers("rename_note", "success")
async def test_rename_with_a_bare_name_keeps_the_folder(vault: Harness) -> None:
    out = await vault.ok("rename_note", path="Projects/Plan", new_path="Roadmap")  # same folder: no confirmation
    assert out["path"] == "Projects/Roadmap.md"
    assert "Bare [[Roadmap]]" in vault.read("Home.md")


async def test_folder_move_moves_every_note_and_rewrites_links(vault: Harness) -> None:
    out = await vault.confirmed("move_note", path="Projects", new_path="Old/Projects")
    assert [m["new_path"] for m in out["moved"]] == ["Old/Projects/Plan.md"]
    assert not (vault.root / "Projects").exists()
    assert "heading [[Old/Projects/Plan#Goals]]" in vault.read("Home.md")
    assert "Up: [home](../../Home.md)" in vault.read("Old/Projects/Plan.md")
    assert await _resolved_backlinks(vault, "Old/Projects/Plan.md")


async def test_failed_write_rolls_back_every_file_and_the_move(vault: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    before = vault.snapshot()
    files = next(iter(vault.app.services.vaults.values())).files
    real_write = files.write
    calls = {"n": 0}

    async def failing_write(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return await real_write(*args, **kwargs)

    monkeypatch.setattr(files, "write", failing_write)
    token = await vault.token_for("move_note", path="Projects/Plan", new_path="Work/Plan")
    error = await vault.err(
        "move_note", "vault_unwritable", path="Projects/Plan", new_path="Work/Plan", elicit_token=token
    )
    assert error["details"]["errno"] == "ENOSPC" and error["retryable"] is False
    monkeypatch.undo()
    assert calls["n"] >= 2
    assert vault.snapshot() == before
    assert len(await _resolved_backlinks(vault, "Projects/Plan.md")) == 7


@pytest.mark.covers("move_note", "failure")
@pytest.mark.covers("rename_note", "failure")
async def test_move_failures_have_codes_and_change_nothing(vault: Harness) -> None:
    before = vault.snapshot()
    await vault.err("move_note", "already_exists", path="Projects/Plan", new_path="Other")
    await vault.err("move_note", "note_not_found", path="Nope", new_path="Else")
    await vault.err("move_note", "path_invalid", path="Projects/Plan", new_path="../outside")
    await vault.err("move_note", "path_invalid", path="Projects", new_path="Projects/Inner")
    await vault.err("rename_note", "conflict", path="Other", new_path="Other2", expected_etag="f" * 32)
    await vault.err("move_note", "acl_denied", path="Other", new_path=".obsidian/Other")
    assert vault.snapshot() == before


async def test_confirmation_only_for_cross_folder_moves_that_apply(vault: Harness) -> None:
    ctx = tool_context(vault)
    confirm = _confirm_move(rename=False)
    assert await confirm(ctx, MoveIn(path="Projects/Plan", new_path="Work/Plan", dry_run=True)) is None
    assert await confirm(ctx, MoveIn(path="Projects/Plan", new_path="Projects/Plan2")) is None
    text = await confirm(ctx, MoveIn(path="Projects/Plan", new_path="Work/Plan"))
    assert text is not None and "Home.md" in text.text() and "Work/Plan.md" in text.text()
    assert text.files is not None and {"Home.md", "Work/Plan.md", "Projects/Plan.md"} <= set(text.files)


class HeldIndex:
    """Holds a vault's first index in its parse step until `release()` (deterministic partial state)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import threading

        from service.indexer import rows

        self._event = threading.Event()
        original = rows.read_batch

        def held(*args: Any, **kwargs: Any) -> Any:
            if not self._event.wait(30):
                raise TimeoutError("the test never released the index")
            return original(*args, **kwargs)

        monkeypatch.setattr(rows, "read_batch", held)

    def release(self) -> None:
        self._event.set()


async def test_rewrites_wait_for_the_first_index_and_miss_no_link(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planned on a partial index, a move would leave links in notes not indexed yet pointing
    at nothing: move_note/rename_note, rewrite_links and rename_tag wait until the first index is complete."""
    import asyncio

    held = HeldIndex(monkeypatch)
    root = make_vault({**VAULT, "Tagged.md": "#old/x here\n"})
    async with started(root, index={"watch": False}) as vg:
        try:
            calls = [
                asyncio.ensure_future(vg.call("rename_note", path="Projects/Plan", new_path="Roadmap")),
                asyncio.ensure_future(vg.call("rename_tag", old="old", new="new", dry_run=True)),
            ]
            for _ in range(20):
                await asyncio.sleep(0)  # let both calls reach their wait
            assert not any(c.done() for c in calls)  # the index cannot be complete while held
        finally:
            held.release()
        moved, renamed = [await asyncio.wait_for(c, 60) for c in calls]
        assert not moved.is_error and not renamed.is_error, (moved.structured, renamed.structured)
        home = vg.read("Home.md")
        assert "Bare [[Roadmap]], aliased [[Roadmap|the plan]], heading [[Projects/Roadmap#Goals]]." in home
        assert "[p](Projects/Roadmap.md#Goals)" in home
        assert "[r](../Projects/Roadmap.md)" in vg.read("Daily/Day.md")
        assert [i["path"] for i in renamed.structured["items"]] == ["Tagged.md"]


async def test_a_rewrite_that_cannot_wait_any_longer_is_index_unavailable(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.tools import graph_common

    held = HeldIndex(monkeypatch)
    monkeypatch.setattr(graph_common, "INDEX_WAIT_S", 0.05)
    async with started(make_vault(VAULT), index={"watch": False}) as vg:
        try:
            before = vg.snapshot()
            for tool, args in (
                ("move_note", {"path": "Projects/Plan", "new_path": "Archive/Plan"}),
                ("rewrite_links", {"old_target": "Projects/Plan.md", "new_target": "Other.md", "dry_run": False}),
                ("rename_tag", {"old": "a", "new": "b"}),
            ):
                error = await vg.err(tool, "index_unavailable", **args)
                assert error["retryable"] is True and error["details"]["state"] == "reconciling", error
            assert vg.snapshot() == before
        finally:
            held.release()
        await vg.indexed()
        assert not (await vg.call("rewrite_links", old_target="Other.md", new_target="Home.md")).is_error


async def test_a_rename_rewriting_many_notes_updates_the_index_once(make_vault: Callable[..., Path]) -> None:
    from service.indexer.runner import indexer_of

    files = {"Hub.md": "# Hub\n", **{f"N/{i:02}.md": f"see [[Hub]] and [Hub](../Hub.md) {i}\n" for i in range(30)}}
    async with started(make_vault(files), index={"watch": False}) as vg:
        await vg.indexed()
        indexer = indexer_of(next(iter(vg.app.vaults.values())))
        assert indexer is not None
        before = indexer.generation
        out = await vg.ok("rename_note", path="Hub", new_path="Center")
        assert out["notes_rewritten"] == 30
        assert indexer.generation == before + 1  # one batch: the move and 30 rewrites together
        back = await vg.ok("get_backlinks", path="Center", limit=100)
        assert len(back["items"]) == 60 and {i["path"] for i in back["items"]} == {f"N/{i:02}.md" for i in range(30)}
        assert (await vg.ok("find_broken_links"))["items"] == []
        found = await vg.ok("search_text", query="Center")
        assert len(found["items"]) >= 1


async def test_an_update_of_many_notes_rebuilds_the_trigram_index_once_after(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewriting many notes defers the trigram index and rebuilds it in one pass afterwards;
    regex search is complete meanwhile (it scans) and prefilters again once it is rebuilt."""
    from service.indexer import runner
    from service.indexer.runner import indexer_of

    files = {"Hub.md": "# Hub\n", **{f"N/{i}.md": f"see [[Hub]] {i}\n" for i in range(5)}}
    async with started(make_vault(files), index={"watch": False}) as vg:
        await vg.indexed()
        indexer = indexer_of(next(iter(vg.app.vaults.values())))
        assert indexer is not None
        assert indexer.trigram.task is None  # the first index was small: never deferred
        monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
        out = await vg.ok("rename_note", path="Hub", new_path="Center")
        assert out["notes_rewritten"] == 5
        during = await vg.ok("search_regex", pattern=r"\[\[Center\]\] [0-4]")
        assert len(during["items"]) == 5
        assert indexer.trigram.task is not None  # the update deferred it and scheduled a rebuild
        await indexer.trigram.settled()
        assert indexer.trigram_ready
        assert (await vg.app.services.db.fetchone("SELECT trigram_deferred FROM fts_control"))[0] == 0
        after = await vg.ok("search_regex", pattern=r"\[\[Center\]\] [0-4]")
        assert after["prefiltered"] is True and after["items"] == during["items"]


async def test_a_folder_move_takes_its_empty_subfolders_along(vault: Harness) -> None:
    (vault.root / "Projects" / "Empty" / "Deeper").mkdir(parents=True)
    (vault.root / "Projects" / "Drafts").mkdir()
    out = await vault.confirmed("move_note", path="Projects", new_path="Old/Projects")
    assert out["files_moved"] == 1
    assert not (vault.root / "Projects").exists()
    assert (vault.root / "Old/Projects/Empty/Deeper").is_dir()
    assert (vault.root / "Old/Projects/Drafts").is_dir()
    assert (vault.root / "Old/Projects/Plan.md").is_file()


async def test_an_empty_folder_moves_and_renames(vault: Harness) -> None:
    (vault.root / "Inbox" / "Later").mkdir(parents=True)
    out = await vault.confirmed("move_note", path="Inbox", new_path="Archive/Inbox")
    assert out["files_moved"] == 0 and out["path"] == "Archive/Inbox"
    assert not (vault.root / "Inbox").exists()
    assert (vault.root / "Archive/Inbox/Later").is_dir()
    out = await vault.ok("rename_note", path="Archive/Inbox", new_path="Tray")
    assert out["path"] == "Archive/Tray"
    assert (vault.root / "Archive/Tray/Later").is_dir() and not (vault.root / "Archive/Inbox").exists()


async def test_a_hidden_folder_inside_a_moved_folder_stays(vault: Harness) -> None:
    (vault.root / "Projects" / ".cache").mkdir()
    (vault.root / "Projects" / ".cache" / "x").write_text("keep")
    await vault.confirmed("move_note", path="Projects", new_path="Old/Projects")
    assert (vault.root / "Projects/.cache/x").read_text() == "keep"
    assert (vault.root / "Old/Projects/Plan.md").is_file()


async def test_an_empty_folder_move_onto_an_existing_path_changes_nothing(vault: Harness) -> None:
    (vault.root / "Inbox").mkdir()
    before = vault.snapshot()
    await vault.err("move_note", "already_exists", path="Inbox", new_path="Projects")
    await vault.err("move_note", "path_invalid", path="Inbox", new_path="Inbox/Inner")
    assert vault.snapshot() == before and (vault.root / "Inbox").is_dir()
