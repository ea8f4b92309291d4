"""Paging a long note through bundle_files / bundle_folder scans it for secrets once (U11, session
77). Each page scanned the whole note again for secrets (Guard.spans) and for topics (Guard.topical,
which redacted the whole note once more to memoise it): a 20 MB note cost ~2 s of CPU a page of
100 KB (~200 pages), a 50 MB note ~9 s a page (~500 pages). A long note's scan is now kept per
version on the vault for its next pages (`service.tools.bundles.window.scanned`). What the
pages say is unchanged: redaction, the `sensitive` flag, a changed note restarted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.retrieval.sensitive import Guard
from tests.conftest import started

LINE = "A long log line about the budget, 40 $ spent, and more words to fill it up.\n"
LONG = 1_000_000  # characters: a note this long keeps its scan (packing.LONG)
SECRET = "api_key: sk-live-0123456789abcdefghijklmnopqrstuvwx\n"


def long_note() -> str:
    lines = LONG // len(LINE) + 10
    return "# Log\n" + LINE * (lines // 2) + SECRET + LINE * (lines // 2)


async def pages(vg: Any, tool: str, **args: Any) -> list[dict[str, Any]]:
    out = await vg.ok(tool, **args)
    entries = list(out["entries"])
    while out["next_cursor"] is not None:
        out = await vg.ok(tool, **args, cursor=out["next_cursor"])
        entries += out["entries"]
    return entries


@pytest.mark.parametrize("tool", ["bundle_files", "bundle_folder"])
async def test_a_long_note_is_scanned_once_over_its_pages(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    text = long_note()
    scans: list[int] = []
    spans = Guard.spans

    def counted(self: Guard, scanned: str) -> Any:
        if len(scanned) >= LONG:
            scans.append(len(scanned))
        return spans(self, scanned)

    monkeypatch.setattr(Guard, "spans", counted)
    async with started(make_vault({"Log.md": text})) as vg:
        args: dict[str, Any] = {"paths": ["Log"]} if tool == "bundle_files" else {"folder": ""}
        entries = await pages(vg, tool, **args, max_bytes=100_000)
        assert len(entries) >= 10 and all(e["path"] == "Log.md" for e in entries)
        assert len(scans) == 1, f"the note was scanned {len(scans)} times for {len(entries)} pages"
        whole = "".join(e["content"] for e in entries)
        assert "sk-live" not in whole and "[REDACTED:" in whole
        assert sum(e["redacted"] for e in entries) == 1 and all(e["sensitive"] for e in entries)
        assert len(whole) == entries[0]["length"]
        # a new version is scanned again, and a page of the old one's cursor restarts the note
        first = await vg.ok(tool, **args, max_bytes=100_000)
        (vg.root / "Log.md").write_text(text.replace(SECRET, LINE), encoding="utf-8")
        again = await vg.ok(tool, **args, max_bytes=100_000, cursor=first["next_cursor"])
        assert again["entries"][0]["restarted"] is True and again["entries"][0]["redacted"] == 0
        assert len(scans) == 2
