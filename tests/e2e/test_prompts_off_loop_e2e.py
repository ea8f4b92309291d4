"""The summarize_note, review_folder and daily_review prompts read a long note in a worker thread,
and review_folder parses only what the index reads of it (review R2 s64 F9: a 19 MB note in a
folder held the server's event loop 2.7 s for every client). Checked by ordering, not time, over
HTTP with the SDK client: the read of the long note, once started, waits until another client's
read_note has been answered, which can only happen when the read is off the loop (10 s at most:
on the loop nothing else runs, and the order then fails). Before, all three read on the loop and
review_folder parsed the whole note; and each read the whole note (a 100 MB note: 100 MB read and
decoded) to keep its start: now only the start is read (`VaultFiles.read_start`)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
import pytest
from mcp import Client

from service.indexer import caps
from service.protocol import prompts
from service.vault.files import VaultFiles
from tests.conftest import Harness, e2e

CAP = 4000
T = TypeVar("T")
LONG = "# Long\n\n#deep first body line\n" + "plain words on a line of a long note [[X]]\n" * 3000  # ~130 KB
CASES = (
    ("summarize_note", {"path": "F/Long"}, "F/Long.md"),
    ("review_folder", {"folder": "F"}, "F/Long.md"),
    ("daily_review", {"date": "2026-01-02"}, "Daily/2026-01-02.md"),
)


def _text(result: types.GetPromptResult) -> str:
    return "\n".join(m.content.text for m in result.messages if isinstance(m.content, types.TextContent))


async def _meanwhile(
    vg: Harness, call: Awaitable[T], began: asyncio.Event, release: threading.Event, events: list[str]
) -> T:
    """`call`'s answer, got while it is held (once `began`, until `release`) and another client's
    read_note is answered meanwhile (recorded in `events`)."""
    got = asyncio.ensure_future(call)
    await asyncio.wait([asyncio.ensure_future(began.wait()), got], return_when=asyncio.FIRST_COMPLETED)
    out = await vg.ok("read_note", path="Other")
    assert "read meanwhile" in out["content"]
    events.append("other answered")
    release.set()
    return await got


async def _held_read(
    vg: Harness, client: Client, name: str, args: dict[str, str], long: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], types.GetPromptResult]:
    """Get the prompt while its read of `long` waits for another client's read_note."""
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    loop = asyncio.get_running_loop()
    real_read = VaultFiles.read_start

    def read(self: VaultFiles, vp: Any, chars: int) -> Any:
        if vp.rel == long and not release.is_set():
            events.append("read start")
            loop.call_soon_threadsafe(began.set)
            release.wait(10)
            events.append("read end")
        return real_read(self, vp, chars)

    monkeypatch.setattr(VaultFiles, "read_start", read)
    result = await _meanwhile(vg, client.get_prompt(name, args), began, release, events)
    monkeypatch.setattr(VaultFiles, "read_start", real_read)
    return events, result


async def test_prompts_read_a_long_note_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"F/Short.md": "# Short\n\nsmall note\n", "Other.md": "# Other\n\nread meanwhile\n"})
    (root / "F" / "Long.md").write_text(LONG, encoding="utf-8")
    (root / "Daily").mkdir()
    (root / "Daily" / "2026-01-02.md").write_text(LONG, encoding="utf-8")
    parsed: dict[str, int] = {}
    real_parse = prompts.parse_note

    def parse_note(rel: str, text: str, *args: Any, **kwargs: Any) -> Any:
        parsed[rel] = len(text)
        return real_parse(rel, text, *args, **kwargs)

    monkeypatch.setattr(prompts, "parse_note", parse_note)
    whole: list[str] = []  # notes read whole (`VaultFiles.read`)
    real_whole = VaultFiles.read

    def read_whole(self: VaultFiles, vp: Any) -> Any:
        whole.append(vp.rel)
        return real_whole(self, vp)

    monkeypatch.setattr(VaultFiles, "read", read_whole)
    before = caps.use_max_chars(CAP)
    try:
        async with e2e(root) as (url, vg), Client(url) as client:
            for name, args, long in CASES:
                events, result = await _held_read(vg, client, name, args, long, monkeypatch)
                assert events == ["read start", "other answered", "read end"], (name, events)
                text = _text(result)
                assert "first body line" in text, name
                if name == "review_folder":
                    assert "F/Short.md — Short" in text and "deep" in text
                else:
                    assert "[[X]]" in text and len(text) < prompts.MAX_CHARS + 1000
    finally:
        caps.use_max_chars(before)
    # review_folder parsed what the index reads of the long note (cut at a line break), not all of it
    assert 0 < parsed["F/Long.md"] <= CAP < len(LONG)
    assert parsed["F/Short.md"] == len("# Short\n\nsmall note\n")
    assert "F/Long.md" not in whole and "Daily/2026-01-02.md" not in whole, whole


WALKS = (
    ("list_resources", lambda c: c.list_resources()),
    ("complete", lambda c: c.complete(types.PromptReference(name="summarize_note"), {"name": "path", "value": "o"})),
    ("review_folder", lambda c: c.get_prompt("review_folder", {"folder": ""})),
)


@pytest.mark.parametrize("name", [w[0] for w in WALKS])
async def test_a_walk_of_the_vault_runs_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """resources/list and path completion walk the whole vault (100,000 notes: 0.2-0.4 s), and
    review_folder a whole folder, with every note's ACL decision: on the loop before, for each call
    (each keystroke, for completion). Checked by ordering as above: the walk, once started, waits
    until another client's read_note has been answered."""
    root = make_vault({"F/One.md": "# One\n\nbody\n", "Other.md": "# Other\n\nread meanwhile\n"})
    call = dict(WALKS)[name]
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    real_walk = VaultFiles.walk

    async with e2e(root) as (url, vg), Client(url) as client:
        loop = asyncio.get_running_loop()

        def walk(self: VaultFiles, *args: Any, **kwargs: Any) -> Any:
            if not release.is_set():
                events.append("walk start")
                loop.call_soon_threadsafe(began.set)
                release.wait(10)
                events.append("walk end")
            return real_walk(self, *args, **kwargs)

        monkeypatch.setattr(VaultFiles, "walk", walk)
        result = await _meanwhile(vg, call(client), began, release, events)
        monkeypatch.setattr(VaultFiles, "walk", real_walk)
    assert events == ["walk start", "other answered", "walk end"], events
    dumped = result.model_dump_json()
    assert "Other.md" in dumped, dumped  # the walk's answer is whole
