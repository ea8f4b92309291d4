"""A bulk load parsed in worker processes stores exactly what a thread would; a worker that cannot
start or dies falls back to a thread without losing a note; no worker outlives the load; a worker
imports only the parser and starts no multiprocessing helper."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.graph.linkpath import PathSet
from service.indexer import parse_worker, parsepool, rows, runner
from service.markdown import frontmatter
from tests.conftest import started
from tests.real_vaults import VAULTS, needs

HELP = VAULTS / "obsidian-help-en"

# Every stored fact of a note, keyed by path (ids and indexed_at differ between two loads).
DUMP = {
    "notes": "SELECT path, folder, name, title, aliases, properties, tags, frontmatter_error, mtime, size, etag,"
    " word_count FROM notes",
    "text": "SELECT n.path, t.title, t.body FROM note_text t JOIN notes n ON n.id = t.note_id",
    "tags": "SELECT n.path, t.tag, t.tag_lower, t.source FROM note_tags t JOIN notes n ON n.id = t.note_id",
    "properties": "SELECT n.path, p.key, p.list_index, p.value_type, p.value_text, p.value_num, p.value_json"
    " FROM note_properties p JOIN notes n ON n.id = p.note_id",
    "links": "SELECT n.path, l.target_raw, l.target_path, l.subpath, l.alias, l.embed, l.kind, l.line"
    " FROM links l JOIN notes n ON n.id = l.src_id",
    "headings": "SELECT n.path, h.level, h.text, h.line FROM headings h JOIN notes n ON n.id = h.note_id",
    "blocks": "SELECT n.path, b.block_id, b.line FROM blocks b JOIN notes n ON n.id = b.note_id",
    "tasks": "SELECT n.path, t.line, t.status, t.text, t.due, t.scheduled, t.start, t.done, t.priority, t.tags"
    " FROM tasks t JOIN notes n ON n.id = t.note_id",
    "words": "SELECT n.path FROM fts_words f JOIN notes n ON n.id = f.rowid WHERE fts_words MATCH 'obsidian'",
}


class Spy:
    """Records every Parser a load creates (to prove which path it took) and every worker started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsers: list[parsepool.Parser] = []
        self.workers: list[parsepool.Worker] = []
        original = parsepool.Parser
        original_worker = parsepool.Worker

        def make(*args: Any, **kwargs: Any) -> parsepool.Parser:
            parser = original(*args, **kwargs)
            self.parsers.append(parser)
            return parser

        def make_worker(*args: Any, **kwargs: Any) -> parsepool.Worker:
            worker = original_worker(*args, **kwargs)
            self.workers.append(worker)
            return worker

        monkeypatch.setattr(parsepool, "Parser", make)
        monkeypatch.setattr(parsepool, "Worker", make_worker)


def _ended(pids: list[int]) -> bool:
    """Whether none of `pids` is running any more (the parser reaps its workers)."""
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        return False
    return True


async def _dump(root: Path, workers: int) -> dict[str, list[tuple[Any, ...]]]:
    async with started(root, index={"parse_workers": workers, "watch": False}) as vg:
        await vg.indexed()
        db = vg.app.services.db
        return {name: sorted(map(tuple, await db.fetchall(sql)), key=repr) for name, sql in DUMP.items()}


@needs(HELP)
async def test_a_bulk_load_in_worker_processes_stores_what_a_thread_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 1)
    monkeypatch.setattr(parsepool, "MIN_NOTES", 1)
    monkeypatch.setattr(runner, "BATCH", 25)  # several batches, parsed ahead of the writer
    spy = Spy(monkeypatch)
    in_processes = await _dump(shutil.copytree(HELP, tmp_path / "a"), workers=2)
    assert spy.parsers[-1].batches_in_processes == spy.parsers[-1].batches > 5
    in_thread = await _dump(shutil.copytree(HELP, tmp_path / "b"), workers=0)
    assert spy.parsers[-1].batches_in_processes == 0
    assert len(in_processes["notes"]) == len(list(HELP.rglob("*.md")))
    assert in_processes["links"] and in_processes["headings"] and in_processes["words"]
    for name in DUMP:
        assert in_processes[name] == in_thread[name], name
    assert len(spy.workers) == 2 and all(w.proc.returncode is not None for w in spy.workers)


async def test_a_small_change_is_parsed_in_a_thread(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch)
    async with started(make_vault(), index={"parse_workers": 2}) as vg:
        await vg.indexed()
    assert spy.parsers and all(not p.in_processes and p.batches_in_processes == 0 for p in spy.parsers)


@needs(HELP)
async def test_a_bulk_load_of_fewer_notes_than_a_worker_is_worth_is_parsed_in_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 1)  # a bulk load, but of 173 notes
    spy = Spy(monkeypatch)
    await _dump(shutil.copytree(HELP, tmp_path / "a"), workers=2)
    assert spy.parsers[-1].batches > 0 and not spy.parsers[-1].in_processes
    assert spy.parsers[-1].batches_in_processes == 0


async def test_a_worker_resolves_no_link_and_the_server_resolves_them_as_a_thread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frontmatter, "_limits", None)  # the worker's entry sets them for its process
    names = _vault(tmp_path, 4)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "only.md").write_text("# only here\n", encoding="utf-8")
    (tmp_path / "sub" / "x.md").write_text("[[only]] [[n0#Note 0]] ![[missing]]\n", encoding="utf-8")
    names += ["sub/only.md", "sub/x.md"]
    paths = PathSet(names)
    in_worker = _serve(tmp_path, [(names, {})])[0]
    assert all(link[1] is None for p in in_worker[0] for link in p.links)
    expected = rows.read_batch(tmp_path, names, {}, paths)[0]
    assert [p.links for p in rows.with_links_resolved(in_worker[0], paths)] == [p.links for p in expected]
    assert [link[1] for link in expected[-1].links] == ["sub/only.md", "n0.md", None]


def _serve(root: Path, batches: list[tuple[list[str], dict[str, str]]]) -> list[parsepool.Batch]:
    """What the worker's entry answers to `batches`, run in this process over byte buffers."""
    inp = io.BytesIO()
    limits = {"max_frontmatter_values": 100_000, "max_depth": 64, "max_value_bytes": 1 << 24}
    for message in [(str(root), limits), *batches]:
        pickle.dump(message, inp)
    inp.seek(0)
    out = io.BytesIO()
    parse_worker.serve(inp, out)
    out.seek(0)
    return [parse_worker.read_answer(out) for _ in batches]


def test_a_batch_answered_in_chunks_is_what_one_read_of_the_batch_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files that cannot be read, read with a fallback encoding, unchanged (touched) or failing to
    parse, spread over several of the worker's chunks: the answer equals `rows.read_batch` over
    the whole batch, order included."""
    monkeypatch.setattr(frontmatter, "_limits", None)
    names = _vault(tmp_path, 3 * parse_worker.CHUNK + 7)
    (tmp_path / names[70]).write_bytes("caf\xe9 [[n1]]\n".encode("cp1252"))
    os.mkfifo(tmp_path / "pipe.md")
    names.insert(130, "pipe.md")
    names.insert(10, "gone.md")
    known = {names[100]: rows.read_batch(tmp_path, [names[100]], {}, None)[0][0].etag}
    prepare = rows.prepare

    def failing(item: rows.NoteInput, paths: PathSet | None, *rest: Any) -> rows.Prepared:
        if item.path in (names[5], names[140]):
            raise ValueError("a parser bug")
        return prepare(item, paths, *rest)

    monkeypatch.setattr(rows, "prepare", failing)
    (answer,) = _serve(tmp_path, [(names, known)])
    whole = rows.read_batch(tmp_path, names, known, None)
    assert _untimed(answer) == _untimed(whole)
    assert [i.reason for i in answer[2]] == ["encoding", "special_file", "parse_failed", "parse_failed"]
    assert [t[0] for t in answer[1]] == [names[100]]


def _untimed(batch: parsepool.Batch) -> parsepool.Batch:
    """The batch without the time each note was prepared (the last column of its notes row)."""
    return [p._replace(note=p.note[:-1]) for p in batch[0]], batch[1], batch[2]


def _vault(root: Path, n: int) -> list[str]:
    names = []
    for i in range(n):
        name = f"n{i}.md"
        (root / name).write_text(f"# Note {i}\n\nlinks to [[n{(i + 1) % n}]] #tag{i % 3}\n", encoding="utf-8")
        names.append(name)
    return names


async def test_a_broken_pool_falls_back_to_a_thread_for_the_rest(tmp_path: Path) -> None:
    names = _vault(tmp_path, 6)
    paths = PathSet(names)
    expected = rows.read_batch(tmp_path, names, {}, paths)
    parser = parsepool.Parser(tmp_path, paths, workers=1)
    try:
        assert parser.in_processes
        first = await parser.batch(names[:3], {})
        assert [p.path for p in first[0]] == names[:3]
        assert parser.batches_in_processes == 1
        pids = parser.pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)  # the worker is gone under the next batch
        second = await parser.batch(names[3:], {names[5]: expected[0][5].etag})
        assert not parser.in_processes
        assert [p.path for p in second[0]] == names[3:5]
        assert [t[0] for t in second[1]] == [names[5]]  # unchanged content: only touched
        assert [p.links for p in first[0] + second[0]] == [p.links for p in expected[0][:5]]
        assert not parser.pids and _ended(pids)  # given up: reaped at once
    finally:
        await parser.close()


async def test_a_pool_that_cannot_start_parses_in_a_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(parsepool, "Worker", refuse)
    names = _vault(tmp_path, 3)
    parser = parsepool.Parser(tmp_path, PathSet(names), workers=2)
    assert not parser.in_processes
    prepared, touch, _issues = await parser.batch(names, {})
    assert [p.path for p in prepared] == names and not touch
    assert prepared[0].links[0][1] == "n1.md"  # resolved against the vault's files
    await parser.close()


async def test_closing_mid_load_leaves_no_worker_behind(tmp_path: Path) -> None:
    names = _vault(tmp_path, 40)
    parser = parsepool.Parser(tmp_path, PathSet(names), workers=2)
    batches = [asyncio.ensure_future(parser.batch(names[i : i + 5], {})) for i in range(0, 40, 5)]
    first = await batches[0]
    assert len(first[0]) == 5
    pids = parser.pids
    assert len(pids) == 2
    for pending in batches[1:]:
        pending.cancel()  # the load was cancelled with batches queued and running
    await asyncio.gather(*batches[1:], return_exceptions=True)
    await parser.close()
    assert _ended(pids)


async def test_ctrl_c_in_the_terminal_does_not_kill_a_worker_mid_load(tmp_path: Path) -> None:
    """SIGINT reaches the whole process group; the server shuts its pool down itself."""
    names = _vault(tmp_path, 8)
    parser = parsepool.Parser(tmp_path, PathSet(names), workers=1)
    try:
        await parser.batch(names[:2], {})
        (worker,) = parser.pids
        os.kill(worker, signal.SIGINT)
        for i in range(2, 8, 2):
            prepared, _, _ = await parser.batch(names[i : i + 2], {})
            assert [p.path for p in prepared] == names[i : i + 2]
        assert parser.in_processes and parser.batches_in_processes == 4
        assert parser.pids == [worker] and not _ended([worker])
    finally:
        await parser.close()


KILLED_SERVER = """
import asyncio, os, signal, sys
from pathlib import Path
from service.graph.linkpath import PathSet
from service.indexer import parsepool

root = Path(sys.argv[1])
names = [p.name for p in root.glob("*.md")]
parser = parsepool.Parser(root, PathSet(names), workers=1)
asyncio.run(parser.batch(names, {}))
(worker,) = parser.pids
print(worker, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on a pidfd (Linux)")
def test_a_worker_dies_with_a_server_killed_by_sigkill(tmp_path: Path) -> None:
    _vault(tmp_path, 4)
    server = subprocess.run(
        [sys.executable, "-c", KILLED_SERVER, str(tmp_path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert server.returncode == -signal.SIGKILL, server.stderr
    worker = int(server.stdout.split()[0])
    try:
        fd = os.pidfd_open(worker)
    except ProcessLookupError:
        return  # already gone
    try:
        ready, _, _ = select.select([fd], [], [], 60)  # readable once the process has ended
        assert ready, f"parse worker {worker} outlived its server"
    finally:
        os.close(fd)


IMPORTS_OF_A_WORKER = """
import io, json, pickle, sys
from pathlib import Path
from service.indexer import parse_worker

root = sys.argv[1]
inp = io.BytesIO()
limits = {"max_frontmatter_values": 100_000, "max_depth": 64, "max_value_bytes": 1 << 24}
for message in [(root, limits), ([p.name for p in Path(root).glob("*.md")], {})]:
    pickle.dump(message, inp)
inp.seek(0)
out = io.BytesIO()
parse_worker.serve(inp, out)
prepared = pickle.loads(out.getvalue())[0]
print(json.dumps({"modules": sorted(sys.modules), "properties": [p.properties for p in prepared]}))
"""


def _printed_by(script: str, root: Path) -> Any:
    """What `script`, run in a fresh interpreter on `root`, printed as JSON."""
    command = [sys.executable, "-c", script, str(root)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(run.stdout)


def test_a_worker_imports_the_parser_and_not_the_settings_pydantic_or_asyncio(tmp_path: Path) -> None:
    """The worker's whole job (its entry answering a batch, frontmatter included) in a fresh
    interpreter: a module of the server's own stack imported there would cost every worker."""
    (tmp_path / "a.md").write_text("---\nstatus: done\ntags: [x]\n---\n# A\n- [ ] task [due:: 2026-01-01]\n")
    (tmp_path / "b.md").write_text("[[a]] #tag ^block\n")
    found = _printed_by(IMPORTS_OF_A_WORKER, tmp_path)
    assert any(p for p in found["properties"]), "the frontmatter was read"
    modules = set(found["modules"])
    assert "service.indexer.rows" in modules and "yaml" in modules
    heavy = {"pydantic", "pydantic_core", "pydantic_settings", "service.settings", "service.budget", "asyncio"}
    assert not heavy & modules
    assert not any(m.startswith(("multiprocessing", "concurrent")) for m in modules)


CHILDREN_OF_A_LOAD = """
import asyncio, json, os, sys
from pathlib import Path
from service.graph.linkpath import PathSet
from service.indexer import parsepool

root = Path(sys.argv[1])
names = [p.name for p in root.glob("*.md")]
parser = parsepool.Parser(root, PathSet(names), workers=1)
asyncio.run(parser.batch(names, {}))
children = [int(k) for t in Path("/proc/self/task").glob("*/children") for k in t.read_text().split()]
print(json.dumps({
    "workers": parser.pids,
    "children": {k: Path(f"/proc/{k}/cmdline").read_bytes().decode().split(chr(0)) for k in children},
    "maps": Path(f"/proc/{parser.pids[0]}/maps").read_text(),
}))
asyncio.run(parser.close())
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="lists children in /proc (Linux)")
def test_a_load_in_worker_processes_starts_the_workers_and_no_other_process(tmp_path: Path) -> None:
    """No multiprocessing resource tracker (a 12 MB process for the server's lifetime), and the
    running worker has no pydantic extension mapped."""
    _vault(tmp_path, 4)
    found = _printed_by(CHILDREN_OF_A_LOAD, tmp_path)
    (worker,) = found["workers"]
    assert list(found["children"]) == [str(worker)]
    assert "service.indexer.parse_worker" in found["children"][str(worker)]
    assert "_yaml" in found["maps"] and "pydantic_core" not in found["maps"]
