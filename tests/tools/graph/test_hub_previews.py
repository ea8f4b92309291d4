"""Link rewrites on a hub note with 360 backlinking notes, through the dispatch chain.

A dry run (rewrite_links, rename_note, move_note) keeps only its page's edits whole and counts
the rest, so its memory is bounded by `limit`, not by the hub's backlinks; its planning (reading
and rewriting every backlinking note) runs in a worker thread, not on the event loop. The hub's
size only has to dwarf a page plus one batch of planning (`limit + BATCH`): a preview keeping
every edit would hold 360 (rewrite_links, rename_note) or 140 (move_note) where the bound is 104
or 84. (It had 1,200 notes and pages of 100/150: the same checks at ~3x the writes and reads.) What it
answers is what the planning over every line of every note gives (the oracle below:
`rewrite_note` without the line filter, as before): the same pages, totals and rewrites.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from service.app import VaultgateApp
from service.graph import moves as graph_moves
from service.graph.linkpath import PathSet
from service.graph.moves import BATCH, FileEdit, vault_files
from service.graph.rewrite import link_names, rewrite_note
from service.tools.graph import rewrite as rewrite_tool
from service.vault.commit import Phase
from tests.conftest import Harness, settings_for, write_files

N = 420
LINKS_PAGE = 40  # rewrite_links: bound 40 + BATCH = 104 of 360 edits
MOVES_PAGE = 20  # rename/move: bound 84 of 360 (rename) or 140 (move) edits
FILLER = "".join(f"Line {k} with [[Other]] and [x](Other.md) and `code` text.\n" for k in range(20))
FORMS = [
    "See [[Hub Note]] here.",
    "Aliased [[hub note|the hub]] and [[Hub Note#Part]].",
    "Markdown [m](../Hub%20Note.md) link.",
    "Angle [m](<../Hub Note.md>) link.",
    "Inline `[[Hub Note]]` stays, [[Hub Note]] moves.",
    "Unrelated [[Other]] only; the name Hub Note in plain text.",
]


def _note(i: int) -> str:
    # Some notes of the last form link to the hub only from their frontmatter (R3 s62 F6: not found before)
    front = '---\nrelated: "[[Hub Note]]"\n---\n' if i % 7 == 0 else ""
    fence = "```\n[[Hub Note]]\n```\n" if i % 5 == 0 else ""
    return f"{front}# Note {i}\n\n{FILLER}{fence}{FORMS[i % len(FORMS)]}\n{FILLER}"


FRONT_ONLY = sum(1 for i in range(N) if i % 7 == 0 and i % len(FORMS) == len(FORMS) - 1)
LINKING = N - N // len(FORMS) + FRONT_ONLY  # the notes a rewrite of the hub changes


def hub_vault() -> dict[str, str]:
    files = {f"Notes/n{i:04}.md": _note(i) for i in range(N)}
    files["Hub Note.md"] = "# Hub\n\n## Part\n"
    files["Other.md"] = "# Other\n"
    files["Target.md"] = "# Target\n"
    return files


class LiveEdits:
    """A step hook: the most planned edits (`FileEdit`) alive at once during a change's
    preparation, looked at every 150 notes and at the last one, as checked against `bound`.

    Edits are counted as the planners make them and free them (a counting subclass in the two
    modules that build them; `created` shows it was used): a collection of the whole heap at each
    look cost ~0.2 s, ~80 times a test. The collection still runs where it can change the answer:
    when more than `bound` are counted, a finished call's edits may only wait for the collector
    (reference cycles), so it runs and they are counted again — `most` exceeds `bound` exactly when
    more than `bound` edits were alive at a look, as with a full collection at every look."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, bound: int) -> None:
        self.bound = bound
        self.most = self.alive = self.created = 0
        lock = threading.Lock()  # edits are made in worker threads and freed on the loop
        live = self

        class Counted(FileEdit):
            def __init__(self, *args: Any) -> None:
                super().__init__(*args)
                with lock:
                    live.alive += 1
                    live.created += 1
                self.counted = True

            def __del__(self) -> None:
                if getattr(self, "counted", False):
                    with lock:
                        live.alive -= 1

        monkeypatch.setattr(graph_moves, "FileEdit", Counted)
        monkeypatch.setattr(rewrite_tool, "FileEdit", Counted)

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None:
        if phase == "prepare" and (done % 150 == 0 or done == total):
            if self.alive > self.bound:
                gc.collect()  # what an earlier call left for the collector is not this call's
            self.most = max(self.most, self.alive)


@contextlib.asynccontextmanager
async def hub(tmp_path: Path, hook: Any = None) -> AsyncIterator[Harness]:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_vault())
    app = VaultgateApp(settings_for(root), step_hook=hook)
    async with app.running():
        harness = Harness(app, root)
        await harness.indexed()
        yield harness


def oracle(root: Path, vg: Harness, moves: dict[str, str], only: str | None = None) -> list[dict[str, Any]]:
    """Every note's change as planning over every line gives it (no `names`), in path order."""
    vault = next(iter(vg.app.services.vaults.values()))
    files = vault_files(vault)
    before, after = PathSet(files), PathSet(moves.get(f, f) for f in files)
    out = []
    for path in sorted(files):
        if not path.endswith(".md"):
            continue
        text = (root / path).read_text(encoding="utf-8")
        new_path = moves.get(path, path)
        result = rewrite_note(
            text,
            source_before=path,
            source_after=new_path,
            before=before,
            after=after,
            moved=moves,
            only_targets=frozenset({only}) if only else None,
        )
        if result.changed:
            changes = [{"line": c.line, "before": c.before, "after": c.after} for c in result.changes]
            out.append({"path": path, "changes": changes, "text": result.text, "new_path": new_path})
    return out


async def pages(vg: Harness, tool: str, limit: int, **args: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every item of a dry run, page after page, and the first page."""
    first = out = await vg.ok(tool, dry_run=True, limit=limit, **args)
    items = list(out["items"])
    while out["next_cursor"]:
        assert len(out["items"]) == limit
        out = await vg.ok(tool, dry_run=True, limit=limit, cursor=out["next_cursor"], **args)
        items += out["items"]
    return items, first


def _shape(items: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [(i["path"], i["changes"]) for i in items]


async def test_rewrite_links_preview_is_bounded_by_its_page_and_the_same_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = LiveEdits(monkeypatch, LINKS_PAGE + BATCH)
    async with hub(tmp_path, live) as vg:
        expected = oracle(vg.root, vg, {"Hub Note.md": "Target.md"}, only="Hub Note.md")
        assert len(expected) == LINKING  # every note links to the hub but most of those of the last form
        assert len(expected) > 3 * (LINKS_PAGE + BATCH)  # far more than a page and a batch
        first = await vg.ok("rewrite_links", old_target="Hub Note", new_target="Target", limit=LINKS_PAGE)
        assert live.most <= LINKS_PAGE + BATCH, live.most  # all of them before: every edit was kept
        assert live.created >= len(expected)  # the edits were counted
        items, _ = await pages(vg, "rewrite_links", LINKS_PAGE, old_target="Hub Note", new_target="Target")
        assert _shape(items) == [(e["path"], e["changes"]) for e in expected]
        assert first["items"] == items[:LINKS_PAGE] and first["truncated"] is True
        assert first["files_changed"] == len(expected)
        assert first["links_rewritten"] == sum(len(e["changes"]) for e in expected)
        # Applied, every note is written as planned (the fenced and inline-code links stay).
        done = await vg.confirmed("rewrite_links", old_target="Hub Note", new_target="Target", dry_run=False, limit=10)
        assert done["files_changed"] == len(expected) and len(done["items"]) == 10 and done["next_cursor"] is None
        for e in expected:
            assert vg.read(e["path"]) == e["text"]
        assert "Inline `[[Hub Note]]` stays, [[Target]] moves." in vg.read("Notes/n0004.md")
        assert "```\n[[Hub Note]]\n```" in vg.read("Notes/n0005.md")


@pytest.mark.parametrize(
    ("tool", "new_path", "moved_to"),
    [("rename_note", "Hub Note v2", "Hub Note v2.md"), ("move_note", "Archive/Hub Note.md", "Archive/Hub Note.md")],
)
async def test_move_preview_is_bounded_and_the_move_rewrites_every_backlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, new_path: str, moved_to: str
) -> None:
    live = LiveEdits(monkeypatch, MOVES_PAGE + BATCH)
    async with hub(tmp_path, live) as vg:
        expected = oracle(vg.root, vg, {"Hub Note.md": moved_to})
        # the rename changes every linking note; the move only the relative Markdown links (a third)
        assert len(expected) > 1.5 * (MOVES_PAGE + BATCH)
        items, first = await pages(vg, tool, MOVES_PAGE, path="Hub Note", new_path=new_path)
        assert live.most <= MOVES_PAGE + BATCH, live.most
        assert live.created >= len(expected)  # the edits were counted
        assert _shape(items) == [(e["path"], e["changes"]) for e in expected]
        assert first["notes_rewritten"] == len(expected) and first["files_moved"] == 1
        assert first["moved"] == [{"old_path": "Hub Note.md", "new_path": moved_to}]
        assert first["links_rewritten"] == sum(len(e["changes"]) for e in expected)
        out = await (vg.confirmed if tool == "move_note" else vg.ok)(tool, path="Hub Note", new_path=new_path)
        assert out["notes_rewritten"] == len(expected) and len(out["items"]) == 50 and out["truncated"] is True
        assert not (vg.root / "Hub Note.md").exists() and (vg.root / moved_to).exists()
        for e in expected:
            assert vg.read(e["path"]) == e["text"]
        # Undone as one change: every note has its bytes back.
        await vg.confirmed("undo_last_plan")
        assert (vg.root / "Hub Note.md").exists() and vg.read("Notes/n0000.md") == _note(0)
        assert all(vg.read(e["path"]) == hub_vault()[e["path"]] for e in expected)


async def test_link_rewrites_are_planned_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading and rewriting the backlinking notes runs in worker threads: on the loop it held
    every other call up for seconds at 100k notes (a hub's 9,281 long backlinking notes)."""
    threads: list[bool] = []

    def spy(text: str, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return rewrite_note(text, **kwargs)

    monkeypatch.setattr(graph_moves, "rewrite_note", spy)
    monkeypatch.setattr(rewrite_tool, "rewrite_note", spy)
    async with hub(tmp_path) as vg:
        await vg.ok("rewrite_links", old_target="Hub Note", new_target="Target", limit=5)
        await vg.ok("rename_note", path="Hub Note", new_path="Hub Note v2", dry_run=True, limit=5)
        await vg.ok("move_note", path="Hub Note", new_path="Archive/Hub Note.md", dry_run=True, limit=5)
    # the move reads only the notes whose links its index rows say change (the relative Markdown links)
    assert len(threads) > 2 * LINKING and not any(threads)


@pytest.mark.parametrize(
    "line",
    [
        "[[ΟΔΟΣ]] and [[οδος|x]]",
        "[x](%CE%9F%CE%94%CE%9F%CE%A3.md) and [y](<ΟΔΟΣ.MD>)",
        "[[Folder/../ΟΔΟΣ]] [[./ΟΔΟΣ#h]] [[ΟΔΟΣ\\|t]]",
        "`[[ΟΔΟΣ]]` [[Other]] [z](Other.md)",
        "[[ΟΔΟΣ.md]] [[ΟΔΟΣ.MD]] ![[ΟΔΟΣ]]",
    ],
)
@pytest.mark.parametrize("moved_to", ["Archive/ΟΔΟΣ.MD", "Place.MD", "Folder/Road.MD"])
def test_the_line_filter_changes_nothing(line: str, moved_to: str) -> None:
    """`names` skips lines that mention no moved name: upper/lower case, a final sigma, an
    upper-case '.MD', percent-encoded and angle Markdown hrefs, relative and embedded links. (A
    sigma's two lower cases made the percent-encoded href's line look unrelated to 'ΟΔΟΣ.MD'.)"""
    files = ["ΟΔΟΣ.MD", "Other.md", "Folder/Note.md", "Folder/ΟΔΟΣ.md", "Place.MD"]
    files = [f for f in files if f != moved_to]
    moves = {"ΟΔΟΣ.MD": moved_to}
    before, after = PathSet(files), PathSet(moves.get(f, f) for f in files)
    text = f"---\nup: '{line}'\n---\n{line}\nplain\n```\n{line}\n```\n{line.upper()}\n{line.lower()}\n"
    for source in ("Folder/Note.md", "Other.md"):
        plain = rewrite_note(text, source_before=source, source_after=source, before=before, after=after, moved=moves)
        named = rewrite_note(
            text,
            source_before=source,
            source_after=source,
            before=before,
            after=after,
            moved=moves,
            names=link_names([*moves, *moves.values()]),
        )
        assert named == plain
