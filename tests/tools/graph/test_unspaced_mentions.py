"""suggest_links finds a note named in a script written without spaces (Chinese, Japanese, Thai)
inside a sentence, as Obsidian's search finds the text: each character of such a script is a
word to the matching (`retrieval.unspaced.WORDS`, the word index's reading), and the name must
stand there whole. Before, words were `\\w+` runs, so "今天我学习了机器学习的基础" was one word and
机器学习 (machine learning), 東京 or ภาษาไทย were never suggested in a sentence; a two-character
name (東京, a word there) was not looked for at all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.graph.mentions import NameIndex, mentions
from tests.conftest import started

FILES = {
    "机器学习.md": "# 机器学习\n",
    "Places/東京.md": "x\n",
    "ภาษาไทย.md": "x\n",
    "東京タワー.md": "x\n",
    "Src.md": "今天我学习了机器学习的基础。\n我住在東京，去了東京タワー。\n机器很好，学习也好，器学不是词。\n"
    "ฉันเรียนภาษาไทยทุกวัน\n[[机器学习]] 已链接\n",
}


async def test_names_written_without_spaces_are_found_in_a_sentence(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("suggest_links", path="Src")
        assert [(i["line"], i["column"], i["mention"], i["target"], i["link"]) for i in out["items"]] == [
            (2, 4, "東京", "Places/東京.md", "[[東京]]"),
            (2, 9, "東京タワー", "東京タワー.md", "[[東京タワー]]"),
            (4, 9, "ภาษาไทย", "ภาษาไทย.md", "[[ภาษาไทย]]"),
        ], out["items"]
        # line 1 names 机器学习 too, but the note links it already (line 5); line 3 holds its pairs
        # 机器, 学习 and 器学 apart, which is no mention
        everywhere = await vg.ok("suggest_links")
        assert [(i["path"], i["line"], i["mention"]) for i in everywhere["items"]] == [
            ("Src.md", 2, "東京"),
            ("Src.md", 2, "東京タワー"),
            ("Src.md", 4, "ภาษาไทย"),
        ]


def test_a_name_is_found_whole_and_only_whole() -> None:
    names = NameIndex([("机器学习.md", "机器学习", []), ("AI学习.md", "AI学习", [])])
    found = [
        (m.mention, m.start) for m in mentions("Me.md", "今天机器学习。机器 学习。机器很好学习。我喜欢AI学习\n", names)
    ]
    assert found == [("机器学习", 2), ("AI学习", 23)]


def test_a_longer_name_takes_its_place_and_without_one_a_shorter_name_is_found_inside() -> None:
    """京都 inside 東京都: where a note named 東京都 (or 東京) exists, the longer name wins at that
    place and 京都 is not suggested there; with no such note, 京都 is found inside it (no word
    segmentation: a known limit, in suggest_links' description)."""
    text = "東京都に住む。京都へ行く。\n"
    for longer in ("東京都", "東京"):
        names = NameIndex([("京都.md", "京都", []), (f"{longer}.md", longer, [])])
        assert [(m.mention, m.start) for m in mentions("Me.md", text, names)] == [(longer, 0), ("京都", 7)]
    alone = NameIndex([("京都.md", "京都", [])])
    assert [(m.mention, m.start) for m in mentions("Me.md", text, alone)] == [("京都", 1), ("京都", 7)]
