"""The audit's unlinked mentions of a title written only in a script without spaces (or in any
script but Latin): 機械学習 inside "今日は機械学習を勉強した", ภาษาไทย inside a Thai sentence,
Москва in a Russian one. Before, a title needed a Latin letter (`[A-Za-z]`) to be looked for at
all, and the check of the very words wanted a word boundary around them, which a title inside a
Chinese or Japanese sentence never has; text holding only part of a title is still no mention."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import findings, of_kind, run


async def test_a_title_without_latin_letters_is_found_in_a_sentence(make_vault: Callable[..., Path]) -> None:
    vault = {
        "Topics/機械学習.md": "# 機械学習\n\nML.\n",
        "Topics/ภาษาไทย.md": "# ภาษาไทย\n\nThai.\n",
        "Places/Москва.md": "# Москва\n\nCity.\n",
        "Days/Study.md": "# Study\n\n今日は機械学習を勉強した。\n",
        "Days/Thai.md": "# Thai\n\nฉันเรียนภาษาไทยทุกวัน\n",
        "Days/Trip.md": "# Trip\n\nМы были в Москва летом.\n",
        "Days/Parts.md": "# Parts\n\n機械が好き、学習も好き。\n",
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        found = {(m["detail"]["path"], m["detail"]["target"]) for m in of_kind(await findings(vg), "unlinked_mention")}
        assert found == {
            ("Days/Study.md", "Topics/機械学習.md"),
            ("Days/Thai.md", "Topics/ภาษาไทย.md"),
            ("Days/Trip.md", "Places/Москва.md"),
        }
