"""A move reads only the linking notes whose links it changes, and plans what reading all of them planned.

A move used to read and parse every note linking to a moved file's name, although most of them
link by name, which the move leaves right: a 249-note folder of the 10k workload read ~2,500
notes, twice (the confirmation's preview, then the move), most of the move's 3 s. Now the index's
rows of each such note's links decide whether one of them changes (`service.graph.move_candidates`,
the same decision `rewrite_note` makes per link); the note is read only then, or when its rows
cannot say. The oracle is the move with that decision switched off (every candidate read, as
before): its previews, page by page, and its run must be the same, on a planted vault holding
every link form and on the real vaults' largest folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.graph import moves as graph_moves
from service.graph.rewrite import rewrite_note
from tests.conftest import Harness, started, write_files
from tests.real_vaults import VAULTS, writable_copy

VAULT = {
    # the folder that moves: its notes link to each other, by name, by path, relatively
    "A/N1.md": "# N1\n\n## Part\n\n[[N2]] and [[A/N3]] and [up](../Top.md) ^b1\n",
    "A/N2.md": "# N2\n\n[n1](N1.md) and [[N1#Part|p]]\n",
    "A/N3.md": "# N3\n\n![[N1]]\n",
    "A/Dup.md": "# Dup in A\n",
    "A/My Note.md": "# spaced\n",
    "A/Sub/Deep.md": "# Deep\n\n[[../N1]] and [[Top]]\n",
    # notes that stay: only by-name links to the folder's notes (nothing changes: never read)
    "Names/Only1.md": "[[N1]] and [[N2|two]] and ![[N3]] and [[N1#Part]] and [[N1#^b1]]\n",
    "Names/Only2.md": "---\ntags: [x]\n---\nSee [[N3]], [[My Note]], [[Deep]].\n",
    # notes that stay and whose links change
    "Paths/P1.md": "[[A/N1]] and [[A/N2|alias]] and [[A/Sub/Deep#Deep]]\n",
    "Paths/P2.md": "[md](../A/N1.md) and [enc](../A/My%20Note.md) and [angle](<../A/My Note.md>)\n",
    "Paths/P3.md": '---\nup: "[[A/N3]]"\n---\nBody [[N1]].\n',
    "Paths/P4.md": "Mixed [[N1]] then [[A/N2]].\n",
    # a name two folders share: the link's resolution may turn on the move
    "C/Dup.md": "# Dup in C\n",
    "C/Near.md": "[[Dup]] is the one here; [[A/Dup]] the other.\n",
    "A/Near2.md": "[[Dup]] is the one in A.\n",
    "Top.md": "# Top\n\n[[A/N1]] [[Dup]] [x](A/N2.md)\n",
    "Code.md": "`[[A/N1]]` in code, and [[A/N1]] not.\n",
    "Board.canvas": '{"nodes":[{"id":"1","type":"file","file":"A/N1.md","x":0,"y":0,"width":1,"height":1}],"edges":[]}',
}


def _everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """The move as before: no linking note is known to keep its text, each one is read."""

    async def none_kept(*_args: Any, **_kwargs: Any) -> set[str]:
        return set()

    monkeypatch.setattr(graph_moves, "kept_as_written", none_kept)


async def _preview(vg: Harness, tool: str, path: str, new_path: str) -> tuple[dict[str, Any], list[Any]]:
    """Every page of the dry run: the counts, and each listed note's changes."""
    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await vg.ok(
            tool, path=path, new_path=new_path, dry_run=True, limit=500, **({"cursor": cursor} if cursor else {})
        )
        items += [(i["path"], i.get("new_path"), i["changes"]) for i in page["items"]]
        cursor = page.get("next_cursor")
        if not cursor:
            counts = {k: page[k] for k in ("files_moved", "files_changed", "notes_rewritten", "links_rewritten")}
            return counts, items


MOVES = [
    ("rename_note", "A", "B"),  # the folder: every link form to it
    ("move_note", "A", "Archive/"),  # into a folder, deeper: the relative links change depth
    ("move_note", "A/N1", "Archive/N1"),  # one note
    ("rename_note", "A/N1", "First"),  # a new name: every link to it
    ("move_note", "C/Dup", "Elsewhere/Dup"),  # a shared name
    ("move_note", "A/Sub", "Sub"),
]


@pytest.mark.parametrize(("tool", "path", "new_path"), MOVES)
async def test_the_preview_and_the_run_are_what_reading_every_note_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, path: str, new_path: str
) -> None:
    now = await _preview_and_run(tmp_path / "now", tool, path, new_path)
    _everything(monkeypatch)
    before = await _preview_and_run(tmp_path / "before", tool, path, new_path)
    assert now == before
    assert now[0][0]["links_rewritten"] > 0 or tool == "move_note" and path == "C/Dup"


async def _preview_and_run(root: Path, tool: str, path: str, new_path: str) -> tuple[Any, ...]:
    """On a fresh copy of the vault: the dry run's pages, the run's counts, every file after it."""
    async with started(_vault(root)) as vg:
        await vg.indexed()
        preview = await _preview(vg, tool, path, new_path)
        out = await (vg.confirmed if tool == "move_note" else vg.ok)(tool, path=path, new_path=new_path)
        keys = ("files_moved", "files_changed", "notes_rewritten", "links_rewritten")
        files = {p.relative_to(vg.root).as_posix(): p.read_bytes() for p in _notes(vg.root)}
        return preview, {k: out[k] for k in keys}, files


def _vault(root: Path) -> Path:
    root.mkdir(parents=True)
    write_files(root, dict(VAULT))
    return root


def _notes(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*") if p.is_file() and ".vaultgate" not in p.parts and ".obsidian" not in p.parts
    )


async def test_a_folder_move_reads_only_the_notes_whose_links_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []

    def spy(text: str, **kwargs: Any) -> Any:
        read.append(kwargs["source_before"])
        return rewrite_note(text, **kwargs)

    monkeypatch.setattr(graph_moves, "rewrite_note", spy)
    async with started(_vault(tmp_path / "v")) as vg:
        await vg.indexed()
        out = await vg.ok("rename_note", path="A", new_path="B")
    changed = {i["path"] for i in out["items"]}
    assert {"Paths/P1.md", "Paths/P2.md", "Paths/P3.md", "Paths/P4.md", "Top.md", "Code.md"} <= changed
    assert "Names/Only1.md" not in read and "Names/Only2.md" not in read  # by name only: never read
    assert set(read) - {p for p in read if p.startswith("A/")} <= changed | {"C/Near.md"}
    assert vg.read("Names/Only1.md") == VAULT["Names/Only1.md"]
    assert vg.read("Paths/P2.md") == "[md](../B/N1.md) and [enc](../B/My%20Note.md) and [angle](<../B/My Note.md>)\n"


REAL = ("obsidian-help-en", "digitalyoshixi-zettelkasten", "kepano-obsidian")


# The zettelkasten (13,415 notes) is copied, indexed and previewed ten times, each page a whole
# plan (its largest folder's 2,612 moves take 6 pages): ~26 s of CPU in the test's process besides
# the parse pool, 91-96 s alone at load 12-16 on 2 cores, past the suite's 180 s under -n 2 there.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", REAL)
async def test_real_vaults_folder_moves_preview_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    source = VAULTS / name
    if not source.is_dir():
        pytest.skip(f"{source} not there (VAULTGATE_TEST_DATA)")
    root = writable_copy(source, tmp_path / name)  # a dry run refuses a read-only note
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        rows = await vg.app.services.db.fetchall("SELECT path FROM notes WHERE path LIKE '%/%' AND path LIKE '%.md'")
        folders: dict[str, int] = {}
        for (path,) in rows:
            top = str(path).split("/", 1)[0]
            if not top.startswith("."):
                folders[top] = folders.get(top, 0) + 1
        biggest = sorted(folders, key=lambda f: (-folders[f], f))[:3]
        moves = [(f + "/", "Moved/" + f + "/") for f in biggest]
        one = await vg.app.services.db.fetchone(
            "SELECT target_path FROM links WHERE target_path LIKE '%/%.md' GROUP BY target_path "
            "ORDER BY count(*) DESC, target_path LIMIT 1"
        )
        calls = [("move_note", old, new) for old, new in moves]
        if one is not None:  # the most linked note: moved, and renamed (every link to it changes)
            calls.append(("move_note", str(one[0]), "Moved/" + str(one[0]).rsplit("/", 1)[-1]))
            calls.append(("rename_note", str(one[0]), "Renamed " + str(one[0]).rsplit("/", 1)[-1]))
        now = [await _preview(vg, *call) for call in calls]
        _everything(monkeypatch)
        before = [await _preview(vg, *call) for call in calls]
    assert now == before
    assert now[-1][0]["notes_rewritten"] > 0
