"""The indexer: link resolution as notes come and go, external edits via the watcher, warm
restarts that re-parse nothing unchanged, and real vaults against their published statistics."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.graph.linkpath import PathSet
from service.indexer import rows
from service.vault.events import FileChange
from tests.conftest import Harness, started
from tests.real_vaults import VAULTS, missing, read_only_copy


def _notes(n: int) -> dict[str, str]:
    """`n` plain notes at the vault's root."""
    return {f"N{i}.md": f"# Note {i}\n\nbody {i}\n" for i in range(n)}


async def _outlinks(vg: Harness, path: str) -> list[tuple[str, bool]]:
    out = await vg.ok("get_outlinks", path=path)
    return [(i["path"], i["resolved"]) for i in out["items"]]


async def test_links_resolve_when_the_target_appears_and_break_when_it_goes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "See [[Later]] and [[sub/Deep|d]].\n"})) as vg:
        await vg.indexed()
        assert await _outlinks(vg, "A") == [("Later.md", False), ("sub/Deep.md", False)]
        await vg.ok("create_note", path="Folder/Later", content="# Later\n")
        assert await _outlinks(vg, "A") == [("Folder/Later.md", True), ("sub/Deep.md", False)]
        await vg.ok("create_note", path="sub/Deep", content="x\n")
        assert (await _outlinks(vg, "A"))[1] == ("sub/Deep.md", True)
        await vg.ok("delete_note", path="Folder/Later")
        assert (await _outlinks(vg, "A"))[0] == ("Later.md", False)
        broken = await vg.ok("find_broken_links")
        assert [i["target"] for i in broken["items"]] == ["Later"]


async def test_external_edits_are_applied_and_published_as_external(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        seen: list[FileChange] = []
        arrived = asyncio.Event()

        gone = asyncio.Event()

        async def listener(changes: Sequence[FileChange]) -> None:
            seen.extend(changes)
            if any(c.path == "B.md" for c in changes):
                arrived.set()
            if any(c.path == "B.md" and c.kind == "deleted" for c in changes):
                gone.set()

        vault.bus.subscribe(listener)
        (root / "B.md").write_text("# B\n\nwombat\n", encoding="utf-8")
        await asyncio.wait_for(arrived.wait(), 60)
        assert all(c.origin == "external" for c in seen if c.path == "B.md")
        found = await vg.ok("search_text", query="wombat")
        assert [i["path"] for i in found["items"]] == ["B.md"]
        arrived.clear()
        seen.clear()
        (root / "B.md").unlink()
        await asyncio.wait_for(gone.wait(), 60)  # published after the index applied it
        assert (await vg.ok("search_text", query="wombat"))["items"] == []


async def test_warm_restart_parses_only_changed_notes(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(_notes(30))
    parsed: list[str] = []
    original = rows.prepare

    def counting(item: rows.NoteInput, paths: PathSet | None, *rest: Any) -> rows.Prepared:
        parsed.append(item.path)
        return original(item, paths, *rest)

    monkeypatch.setattr(rows, "prepare", counting)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
    assert len(parsed) == 30
    parsed.clear()
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
    assert parsed == []
    (root / "N3.md").write_text("# Note 3\n\nchanged\n", encoding="utf-8")
    (root / "N4.md").unlink()
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert (await vg.ok("index_status"))["notes"] == 29
        assert [i["path"] for i in (await vg.ok("search_text", query="changed"))["items"]] == ["N3.md"]
    assert parsed == ["N3.md"]


# Published tasks count only '[ ]'/'[x]' items outside blockquotes; obsidian-hub documents custom
# statuses ('[?]', '[!]', ...), which Obsidian treats as tasks too, so its task count is not
# compared. Tasks inside callouts (`> - [x] Milk`) are tasks to Obsidian and to the index, not to
# the published count: the difference may be at most the quoted task-like lines.
CUSTOM_STATUSES = {"obsidian-hub"}
_QUOTED_TASK = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)+[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[.\][ \t]", re.MULTILINE)


def _quoted_task_lines(root: Path) -> int:
    return sum(len(_QUOTED_TASK.findall(p.read_text(encoding="utf-8", errors="replace"))) for p in root.rglob("*.md"))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for v in items for s in _strings(v)]


def _property_wikilinks(root: Path) -> int:
    """Wikilinks in the notes' frontmatter values, as PyYAML reads them (the index's own reader aside;
    a template's `{{date}}` placeholder read as nothing, as the index reads it)."""
    found = 0
    for p in root.rglob("*.md"):
        m = re.match(r"---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", p.read_text(encoding="utf-8", errors="replace"), re.M | re.S)
        try:
            data = yaml.safe_load(re.sub(r"\{\{[^{}]*\}\}", "", m.group(1))) if m else None  # template {{date}}
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):
            found += sum(len(re.findall(r"\[\[[^\[\]\n]+?\]\]", s)) for s in _strings(data))
    return found


def _commented_headings(root: Path) -> int:
    """Heading lines inside comment blocks (`%%` … `%%`, a line starting `<!--` … `-->`): the published
    counts include them; Obsidian lists none of them (the Hub's templates comment out empty sections)."""
    block = re.compile(r"^ {0,3}<!--.*?-->|%%.*?%%", re.M | re.S)
    texts = (p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*.md"))
    return sum(len(re.findall(r"^#{1,6}[ \t]", m.group(0), re.M)) for text in texts for m in block.finditer(text))


@pytest.mark.parametrize("name", ["obsidian-help-en", "kepano-obsidian", "obsidian-hub", "digitalyoshixi-zettelkasten"])
async def test_real_vaults_match_their_statistics(tmp_path: Path, name: str) -> None:
    source = VAULTS / name
    if not source.is_dir():
        pytest.skip(missing(source))
    stats = json.loads((VAULTS / f"{name}.stats.json").read_text())
    root = read_only_copy(source, tmp_path / name)  # only read: indexed and counted
    attachments = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix != ".md")
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed(600)
        status = await vg.ok("index_status")
        db = vg.app.services.db
        # The published counts are of the notes' text: the links written in properties are apart.
        body = "kind = 'wikilink' AND property IS NULL"
        plain, plain_ok = await db.fetchone(
            f"SELECT count(*), sum(target_path IS NOT NULL) FROM links WHERE {body} AND embed = 0"
        )
        embeds, embeds_ok = await db.fetchone(
            f"SELECT count(*), sum(target_path IS NOT NULL) FROM links WHERE {body} AND embed = 1"
        )
        (in_properties,) = await db.fetchone("SELECT count(*) FROM links WHERE property IS NOT NULL")
        (inline_tags,) = await db.fetchone("SELECT count(DISTINCT tag_lower) FROM note_tags WHERE source = 'inline'")
    assert status["notes"] == stats["notes_md"]
    assert in_properties == _property_wikilinks(root)
    # Links inside code blocks are not links (Obsidian agrees); the published counts include them.
    assert abs(plain - stats["wikilinks"]) <= 0.05 * stats["wikilinks"]
    assert abs(embeds - stats["embeds"]) <= 0.05 * max(stats["embeds"], 20)
    assert abs(status["headings"] - (stats["headings"] - _commented_headings(root))) <= 0.01 * stats["headings"]
    # Published unique inline tags (lower-cased): not counting code, HTML attributes and HTML
    # blocks (`<td style="color: #dcddde">`), but counting `%% comments %%`, as Obsidian does.
    assert abs(inline_tags - stats["unique_inline_tags"]) <= max(1, 0.05 * stats["unique_inline_tags"])
    if name not in CUSTOM_STATUSES:
        assert stats["tasks"] <= status["tasks"] <= stats["tasks"] + _quoted_task_lines(root)
    if attachments >= stats["non_markdown_files"]:
        # Every file is there: resolution of all wikilinks and embeds must match.
        assert round((plain_ok + embeds_ok) / (plain + embeds) * 100, 1) == stats["wikilink_resolved_pct"]
    else:
        # Attachments were left out of the copy, so compare links between notes only.
        assert plain_ok / plain * 100 >= stats["wikilink_resolved_pct"] - 1.5


async def test_an_edit_keeps_the_note_id_and_replaces_every_derived_row(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"N.md": "# N\n\nold words #oldtag [[A]]\n- [ ] old task\n", "A.md": "a", "B.md": "b"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        db = vg.app.services.db

        async def note_id() -> int:
            return int((await db.fetchone("SELECT id FROM notes WHERE path = 'N.md'"))[0])

        before = await note_id()
        # A newer row, so that an id freed by delete+insert could not come back by chance.
        (root / "C.md").write_text("c", encoding="utf-8")
        await vg.indexer().apply([FileChange("created", "C.md", origin="external")])
        for n in range(2):
            (root / "N.md").write_text(f"# N{n}\n\nfresh words #newtag [[B]]\n- [x] new task {n}\n", encoding="utf-8")
            await vg.indexer().apply([FileChange("modified", "N.md", origin="external")])
            assert await note_id() == before
        assert [i["path"] for i in (await vg.ok("search_text", query="fresh"))["items"]] == ["N.md"]
        assert (await vg.ok("search_text", query="old"))["items"] == []
        assert await _outlinks(vg, "N.md") == [("B.md", True)]
        tags = await db.fetchall("SELECT tag FROM note_tags WHERE note_id = ?", (before,))
        tasks = await db.fetchall("SELECT status, text FROM tasks WHERE note_id = ?", (before,))
        assert [tuple(r) for r in tags] == [("newtag",)] and [tuple(r) for r in tasks] == [("x", "new task 1")]
        assert (await db.fetchone("SELECT count(*) FROM headings WHERE note_id = ?", (before,)))[0] == 1


async def test_a_write_during_the_first_index_does_not_wait_for_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first reconcile is held in its parse step: a write through vaultgate returns at once
    (search says `partial` meanwhile), and the reconcile applies it while it waits for the parse
    (`service/indexer/early.py`), before the index is ready."""
    release = _hold_first_index(monkeypatch)
    root = make_vault(_notes(5) | {"Old.md": "# Old\n\nstale\n"})
    async with started(root, index={"watch": False}) as vg:
        indexer = vg.indexer()
        try:
            made = await asyncio.wait_for(vg.ok("create_note", path="New", content="a narwhal #sea\n"), 60)
            assert made["path"] == "New.md"
            await asyncio.wait_for(vg.ok("delete_note", path="Old"), 60)  # to the vault trash
            assert indexer.state == "reconciling" and not indexer.ready  # still held
            partial = await vg.ok("search_text", query="narwhal")
            assert partial["partial"] is True and [i["path"] for i in partial["items"]] == ["New.md"]
        finally:
            release.set()
        await vg.indexed()
        assert indexer.ready and not indexer._early.later and not indexer._early.waiting
        found = await vg.ok("search_text", query="narwhal")
        assert [i["path"] for i in found["items"]] == ["New.md"] and found["partial"] is False
        assert (await vg.ok("search_tags", tags=["sea"]))["total"] == 1
        assert (await vg.ok("index_status"))["notes"] == 6  # 5 + New, Old is gone
        assert (await vg.ok("search_text", query="stale"))["items"] == []


def _hold_first_index(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold the first reconcile in its parse step until the returned event is set."""
    release = threading.Event()
    original = rows.read_batch

    def held(*args: object, **kwargs: object) -> object:
        if not release.wait(30):
            raise TimeoutError("the test never released the reconcile")
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rows, "read_batch", held)
    return release


async def test_a_note_written_during_the_first_index_is_found_by_name_as_it_turns_ready(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write made while the first index is built is applied just before the index turns
    ready. A bare name read while that happens must still find it: the names were once read
    from the index without it, the index was ready by then, and the disk was not looked at
    (a CI run failed `read_excalidraw` of a drawing just written so)."""
    release = _hold_first_index(monkeypatch)
    root = make_vault(_notes(5))
    async with started(root, index={"watch": False}) as vg:
        indexer = vg.indexer()
        try:
            await asyncio.wait_for(vg.ok("create_note", path="Deep/Fresh", content="# Fresh\n\nnew\n"), 60)
            assert not indexer.ready
            read_names = indexer.names.get

            async def turning_ready(load: Any) -> Any:  # read before the write's update, ready after
                before = [n for n in await read_names(load) if n.path != "Deep/Fresh.md"]
                release.set()
                await vg.indexed()
                return before

            monkeypatch.setattr(indexer.names, "get", turning_ready)
            out = await vg.ok("read_note", path="Fresh")
        finally:
            release.set()
        assert out["path"] == "Deep/Fresh.md" and indexer.ready


async def test_a_file_added_while_the_first_index_is_built_is_found_by_name(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.base` named by its bare name while the first index is still built (and does not
    hold it yet) is looked for on disk too, as a note's bare name is."""
    release = _hold_first_index(monkeypatch)
    root = make_vault(_notes(5))
    async with started(root, index={"watch": False}) as vg:
        indexer = vg.indexer()
        try:
            (root / "Deep").mkdir()
            (root / "Deep" / "Shelf.base").write_text("views:\n  - type: table\n    name: All\n")
            assert not indexer.ready and "Deep/Shelf.base" not in indexer.files()
            out = await vg.ok("query_base", path="Shelf.base")
        finally:
            release.set()
        assert out["view"] == "All" and out["views"] == ["All"]


async def test_a_write_after_a_failed_first_reconcile_is_applied_not_deferred(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm start whose first reconcile fails sets the watch up afterwards (seconds at most); a
    write through vaultgate meanwhile, while another apply holds the index's apply lock, was
    deferred to a reconcile that had already ended: never applied (until a reindex)."""
    from service.indexer.runner import VaultIndexer

    root = make_vault(_notes(3))
    async with started(root) as vg:
        await vg.indexed()  # the index is warm for the next start
    watch_set_up, release = asyncio.Event(), asyncio.Event()

    async def broken(self: VaultIndexer, **kwargs: Any) -> dict[str, int]:
        raise OSError("disk on fire")

    async def held_watch(self: VaultIndexer) -> bool:
        watch_set_up.set()
        await release.wait()
        return False

    monkeypatch.setattr(VaultIndexer, "reconcile", broken)
    monkeypatch.setattr(VaultIndexer, "_start_watch", held_watch)
    async with started(root) as vg:
        indexer = vg.indexer()
        await asyncio.wait_for(watch_set_up.wait(), 60)
        assert indexer.state == "failed"
        (root / "Late.md").write_text("# Late\n\na pangolin\n", encoding="utf-8")
        async with indexer._apply_lock:  # another apply under way (a group-commit round)
            publishing = asyncio.create_task(vg.app.vaults["main"].bus.publish([FileChange("created", "Late.md")]))
            for _ in range(5):
                await asyncio.sleep(0)
        release.set()
        await asyncio.wait_for(publishing, 60)
        await vg.indexed()
        assert not indexer._early.later
        row = await vg.app.services.db.fetchone("SELECT 1 FROM notes WHERE path = 'Late.md'")
        assert row is not None
