"""A long note's whole-note work runs in a worker thread, never on the event loop, so one large
note does not hold every other client's call (T1 s62 #13; F7 s62 'what is left'): reading a
section or a line range of it (read_note), its facts when the index has no row for it yet,
set_task_status (its lookup and its answer's diff), set_properties / add_tags (their check
before the write, the write and the answer's diff), append_note. A short note is handled
inline (no thread hop).

Through the dispatch chain: the thread each step runs in is recorded, no timings. The app runs on
the test's main thread, so "off the loop" is "not the main thread". `[index] watch = false`: a
note saved on disk after the start is not indexed, so read_note has no index row for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.markdown import sections, yaml_edit
from service.tools.notes import note_facts, write
from service.tools.properties import edit
from service.tools.tasks import status
from service.vault.offloop import OFF_LOOP_CHARS
from tests.conftest import started

WITHIN = 60.0
TASKS = "".join(f"- [ ] task {i} with [[B]]\n" for i in range(8_000))  # ~200 KB, > OFF_LOOP_CHARS
LONG = "---\nstatus: draft\n---\n# Top\n" + TASKS + "## End\nlast line\n"
SHORT = "---\nstatus: draft\n---\n# Top\n- [ ] task 0 with [[B]]\n## End\nlast line\n"


def _recording(monkeypatch: pytest.MonkeyPatch, seen: dict[str, list[str]], owner: Any, name: str) -> None:
    """Record, under `name`, the thread each call of `owner.name` runs in."""
    real: Callable[..., Any] = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        seen.setdefault(name, []).append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)


async def _threads(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    for owner, name in (
        (sections, "find_heading"),  # read_note's heading
        (note_facts, "parse_note"),  # read_note's facts without an index row
        (status, "parse_note"),  # set_task_status's task lookup
        (status, "diff_lines"),  # set_task_status's answer
        (yaml_edit, "edit_frontmatter"),  # set_properties: the check, then the write
        (edit, "diff_lines"),  # set_properties' answer
        (write, "added"),  # append_note (write.added since bb8d7da3)
    ):
        _recording(monkeypatch, seen, owner, name)
    root = make_vault({"B.md": "# B\n"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed(WITHIN)
        (root / "N.md").write_text(text, encoding="utf-8")  # saved by another program: not indexed
        part = await vg.ok("read_note", path="N", heading=["Top", "End"])
        assert part["content"] == "## End\nlast line\n"
        lines = await vg.ok("read_note", path="N", start_line=5, end_line=5)
        assert lines["content"] == "- [ ] task 0 with [[B]]\n"
        await vg.ok("set_task_status", path="N", line=5, status="x", expected_text="task 0 with [[B]]")
        props = await vg.ok("set_properties", path="N", properties={"status": "done"})
        assert props["properties"] == {"status": "done"} and props["changed"]
        await vg.ok("append_note", path="N", content="appended\n")
    after = (root / "N.md").read_text(encoding="utf-8")
    assert after.startswith("---\nstatus: done\n---\n# Top\n- [x] task 0 with [[B]]")
    assert after.endswith("last line\nappended\n")
    return seen


async def test_a_long_notes_whole_note_work_runs_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(LONG) > OFF_LOOP_CHARS
    seen = await _threads(make_vault, monkeypatch, LONG)
    main = threading.main_thread().name
    assert set(seen) == {"find_heading", "parse_note", "edit_frontmatter", "diff_lines", "added"}
    assert {name: [t for t in threads if t == main] for name, threads in seen.items()} == {name: [] for name in seen}


async def test_a_short_notes_work_stays_on_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await _threads(make_vault, monkeypatch, SHORT)
    main = threading.main_thread().name
    assert {name: set(threads) for name, threads in seen.items()} == {name: {main} for name in seen}
