"""Words of scripts written without spaces are found inside a sentence (service/retrieval/unspaced.py).

FTS5's unicode61 tokenizer read a run of Chinese, Japanese or Thai characters up to the next
space or punctuation as one word: `search_text 机器学习` found no note holding
"今天我学习了机器学习的基础知识", `東京` none holding "東京で会議がありました", Korean `회의` not
"회의에서" (the word with its particle), Thai nothing at all. Obsidian's own search finds all of
them. Now each such character is a word of the index and a searched string a phrase of them: the
notes holding it are found, the snippet quotes it as written, the highlight spans it, and the
query is shown without the joiners. Migration 0044 gives an index built before the same."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.retrieval.unspaced import JOINER, words_text
from tests.conftest import Harness, indexed_before, started

LONG = "".join(f"这是第{i}段。我们讨论了项目的进展和计划，没有什么特别的内容。\n\n" for i in range(400))
FILES = {
    "学习.md": "# 学习笔记\n\n今天我学习了机器学习的基础知识。深度学习很有趣。\n",
    "会議.md": "# 日本語\n\n東京で会議がありました。プロジェクトの計画を話し合いました。\n",
    "회의.md": "# 한국어\n\n오늘 회의에서 프로젝트 계획을 논의했습니다.\n",
    "Thai.md": "# Thai\n\nวันนี้เราประชุมเรื่องโครงการ\n",
    "Mixed.md": "# Mixed\n\nOur AI学习 plan for the café.\n",
    "Long.md": "# Long\n\n" + LONG + "最后我们决定去東京出差。\n",
    "English.md": "# English\n\nThe garden plan for spring.\n",
}


def _found(out: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """Each hit's path -> its snippet and the highlighted parts of it."""
    return {
        i["path"]: (i["snippet"], [i["snippet"][s:e] for s, e in i["highlights"]])
        for i in out["items"]
        if JOINER not in i["snippet"]
    }


async def _searched(vg: Harness) -> None:
    out = await vg.ok("search_text", query="机器学习")
    assert out["query"] == '"机器学习"' and out["match"] == "all"
    assert list(_found(out)) == ["学习.md"]
    snippet, marked = _found(out)["学习.md"]
    assert "今天我学习了机器学习的基" in snippet and marked == ["机器学习"], (snippet, marked)

    assert set(_found(await vg.ok("search_text", query="東京"))) == {"会議.md", "Long.md"}
    long_snippet, long_marked = _found(await vg.ok("search_text", query="東京 出差"))["Long.md"]
    assert "最后我们决定去東京出差" in long_snippet and long_marked == ["東京", "出差"]  # a window of a long note
    assert list(_found(await vg.ok("search_text", query="회의"))) == ["회의.md"]  # with its particle: 회의에서
    assert list(_found(await vg.ok("search_text", query="ประชุม"))) == ["Thai.md"]
    assert list(_found(await vg.ok("search_text", query="プロジェクト"))) == ["会議.md"]
    assert list(_found(await vg.ok("search_text", query="AI学习"))) == ["Mixed.md"]
    assert list(_found(await vg.ok("search_text", query="title:学习"))) == ["学习.md"]
    assert list(_found(await vg.ok("search_text", query="学习 -机器"))) == ["Mixed.md"]
    assert set(_found(await vg.ok("search_text", query="机器学习 OR 会議"))) == {"学习.md", "会議.md"}
    prefixed = _found(await vg.ok("search_text", query="学*"))  # snippets cut from copies
    assert set(prefixed) == {"学习.md", "Mixed.md"} and set(prefixed["学习.md"][1]) == {"学"}
    # a word of a spaced script is indexed as before
    assert _found(await vg.ok("search_text", query="garden"))["English.md"][1] == ["garden"]
    assert list(_found(await vg.ok("search_text", query="cafe"))) == ["Mixed.md"]


def _integrity(db_path: Path) -> None:
    """The word index agrees with what it reads its content from (`note_words`)."""
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


async def test_words_of_unspaced_scripts_are_found_inside_a_sentence(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _searched(vg)
        # an edit, a rename and a deletion keep the index and its content in step
        etag = (await vg.ok("read_note", path="学习"))["etag"]
        await vg.ok(
            "write_note",
            path="学习",
            content="# 学习笔记\n\n明天复习自然语言处理。\n",
            mode="overwrite",
            expected_etag=etag,
        )
        await vg.ok("rename_note", path="会議", new_path="会議メモ")
        await vg.ok("delete_note", path="Thai")
        await vg.settled()
        assert list(_found(await vg.ok("search_text", query="机器学习"))) == []
        assert list(_found(await vg.ok("search_text", query="自然语言"))) == ["学习.md"]
        assert list(_found(await vg.ok("search_text", query="会議メモ"))) == ["会議メモ.md"]
        assert list(_found(await vg.ok("search_text", query="ประชุม"))) == []
        _integrity(Path(vg.app.db.path))


_BEFORE_0044 = (
    "DROP TRIGGER note_text_ai",
    "DROP TRIGGER note_text_ad",
    "DROP TRIGGER note_text_au",
    "DROP TABLE fts_words",
    "DROP VIEW note_words",
    "ALTER TABLE note_text DROP COLUMN title_words",
    "ALTER TABLE note_text DROP COLUMN body_words",
    "CREATE VIRTUAL TABLE fts_words USING fts5(title, body, content='note_text', content_rowid='note_id',"
    " tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER note_text_ai AFTER INSERT ON note_text BEGIN"
    " INSERT INTO fts_words(rowid, title, body) VALUES (new.note_id, new.title, new.body); END",
    "CREATE TRIGGER note_text_ad AFTER DELETE ON note_text BEGIN INSERT INTO fts_words(fts_words, rowid, title, body)"
    " VALUES ('delete', old.note_id, old.title, old.body); END",
    "CREATE TRIGGER note_text_au AFTER UPDATE ON note_text BEGIN INSERT INTO fts_words(fts_words, rowid, title, body)"
    " VALUES ('delete', old.note_id, old.title, old.body);"
    " INSERT INTO fts_words(rowid, title, body) VALUES (new.note_id, new.title, new.body); END",
    "INSERT INTO fts_words(fts_words) VALUES ('rebuild')",
)


async def test_an_index_built_before_finds_them_after_the_migration(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    await indexed_before(root, 44, *_BEFORE_0044)
    async with started(root) as vg:
        await vg.indexed()
        await _searched(vg)
        _integrity(Path(vg.app.db.path))


def test_only_text_of_unspaced_scripts_is_set_apart() -> None:
    assert words_text("The café plan, naïve résumé — ok") is None
    assert words_text("plain ascii") is None
    j = JOINER
    assert words_text("AI学习!") == f"AI{j}学{j}{j}习{j}!"
    assert words_text("회의에서") == f"{j}회{j}{j}의{j}{j}에{j}{j}서{j}"


async def test_a_run_of_several_words_without_spaces_finds_notes_holding_some(make_vault: Callable[..., Path]) -> None:
    """机器学习基础 ("machine learning basics", as a user or an agent types it, no space) found
    nothing: the strict form wants the string itself, and a query of one word had no relaxed form.
    A run of five characters or more is now, in the relaxed form, its pairs of characters: the
    note holding "机器学习的基础" follows as a partial match (`match: any`), its snippet marking
    the pairs. A run of four or fewer stays one word (机器学习 finds that note alone, `all`)."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("search_text", query="机器学习基础")
        assert out["query"] == '"机器学习基础"' and out["match"] == "any"
        assert out["items"] and out["items"][0]["path"] == "学习.md", out["items"]
        assert {i["match"] for i in out["items"]} == {"any"}
        snippet, marked = _found(out)["学习.md"]
        assert "今天我学习了机器学习的基" in snippet and "机器学习" in marked, (snippet, marked)
        exact = await vg.ok("search_text", query="机器学习")
        assert exact["match"] == "all" and list(_found(exact)) == ["学习.md"]
        assert list(_found(await vg.ok("search_text", query='"机器学习基础"'))) == []  # quoted: the string only
        # Thai letters and marks are not read as pairs: one word, as typed
        assert list(_found(await vg.ok("search_text", query="ประชุมเรื่องอื่น"))) == []
