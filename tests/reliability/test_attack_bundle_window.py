"""A page of a long note packs only the part it can hold (U12, session 78). Since b885ee03 a long
note's scan for secrets is kept for its next pages, but each page still redacted the whole note
(a copy of all of it) and gave all of its rest to the packer, which measured it, in bytes and as
JSON: a 50 MB note cost ~0.48 s of CPU a page of 100 KB (~500 pages), peak RSS +127 MB. A page
now makes only the redacted part from its start that a page can take
(`service.tools.bundles.window.redacted_window`, `Packer.reach`): the pages say the same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.bundles.pack import Packer
from tests.conftest import started

LINE = "A long log line about the budget, 40 $ spent, and more words é 🧭 to fill it up.\n"
SECRET = "api_key: sk-live-0123456789abcdefghijklmnopqrstuvwx\n"
TEXT = "---\ntitle: log\n---\n# Log\n" + "".join(LINE + (SECRET if i % 501 == 0 else "") for i in range(14_000))
BUDGETS: list[dict[str, int]] = [{"max_bytes": 100_000}, {"max_tokens": 20_000}]


@pytest.mark.parametrize("mode", ["whole", "body"])
@pytest.mark.parametrize("budget", BUDGETS, ids=["bytes", "tokens"])
async def test_a_page_packs_only_what_it_can_hold(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str, budget: dict[str, int]
) -> None:
    looked: list[int] = []
    place = Packer.place

    def measured(self: Packer, text: str, start: int, entry: dict[str, Any]) -> Any:
        looked.append(len(text) - start)
        return place(self, text, start, entry)

    monkeypatch.setattr(Packer, "place", measured)
    async with started(make_vault({"Log.md": TEXT})) as vg:
        entries: list[dict[str, Any]] = []
        cursor = None
        while True:
            out = await vg.ok(
                "bundle_files", paths=["Log"], mode=mode, **budget, **({"cursor": cursor} if cursor else {})
            )
            entries += out["entries"]
            cursor = out["next_cursor"]
            if cursor is None:
                break
    whole = "".join(e["content"] for e in entries)
    body = TEXT[len("---\ntitle: log\n---\n") :] if mode == "body" else TEXT
    redacted = next(line for line in whole.split("\n") if "[REDACTED:" in line)  # the secret's line, redacted
    assert "sk-live" not in whole and whole == body.replace(SECRET.rstrip("\n"), redacted)
    assert len(entries) >= 10 and all(e["length"] == len(whole) for e in entries)
    assert sum(e["redacted"] for e in entries) == TEXT.count(SECRET)
    reach = (budget.get("max_bytes") or 4 * budget["max_tokens"]) + 1
    assert max(looked) <= reach, f"a page gave the packer {max(looked):,} characters of a {len(TEXT):,}-character note"
