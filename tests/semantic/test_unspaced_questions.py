"""A question typed in Chinese without spaces (service/retrieval/unspaced.py `pieces`): the text
side of search_hybrid ORs the question's words, and the whole question was one word, a phrase no
note holds, so only the vector side (an English model) answered. The text side now ORs the
question's pairs of characters, as bigram indexing reads such text: the notes holding its words
come first, the one holding most of them at the top."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.semantic import search as sem
from tests.semantic.helpers import semantic

NOTES = {
    "学习.md": "# 学习笔记\n\n今天我学习了机器学习的基础知识，包括监督学习和神经网络。\n",
    "烹饪.md": "# 烹饪\n\n周末我们做了红烧肉和饺子。\n",
    "旅行.md": "# 旅行\n\n明年打算去云南旅行，看看大理和丽江。\n",
    "Garden.md": "# Garden\n\nTomatoes need sun and water.\n",
    "Bread.md": "# Bread\n\nThe dough rises overnight.\n",
}


async def test_a_question_in_chinese_finds_the_note_that_holds_its_words(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with semantic(make_vault(NOTES)) as h:
        for question, path in (("机器学习的基础是什么", "学习.md"), ("去大理旅行怎么样", "旅行.md")):
            out = await h.ok("search_hybrid", query=question, limit=3)
            assert out["items"][0]["path"] == path, (question, out["items"])
        # the text side alone (the vector side finds nothing): it holds the answer by itself
        monkeypatch.setattr(sem, "nearest", _nothing)
        for question, path in (("机器学习的基础是什么", "学习.md"), ("去大理旅行怎么样", "旅行.md")):
            out = await h.ok("search_hybrid", query=question, limit=3)
            assert [i["path"] for i in out["items"]][:1] == [path], (question, out["items"])


def _nothing(*args: Any, **kwargs: Any) -> list[Any]:
    return []
