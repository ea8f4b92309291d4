"""Memory kept in Chinese, Japanese, Korean or Thai is recalled by a word of it
(service/retrieval/unspaced.py `bag_words`): the recall index counted "喜欢机器学习和深度学习"
as one word, which a question about 机器学习 never shares, so search_memory found nothing; its
words are now its pairs of characters, as bigram indexing reads such text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ENTITIES = [
    {"name": "张伟", "entityType": "person", "observations": ["喜欢机器学习和深度学习", "住在北京"]},
    {"name": "佐藤", "entityType": "person", "observations": ["東京で働いている", "寿司が好き"]},
    {"name": "Ana", "entityType": "person", "observations": ["Lives in Lisbon"]},
]


async def test_memory_in_chinese_and_japanese_is_recalled_by_a_word_of_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await vg.ok("create_entities", entities=ENTITIES)
        for query, entity, text in (
            ("机器学习", "张伟", "喜欢机器学习和深度学习"),
            ("他住在北京吗", "张伟", "住在北京"),
            ("東京", "佐藤", "東京で働いている"),
            ("寿司", "佐藤", "寿司が好き"),
            ("lisbon", "Ana", "Lives in Lisbon"),
        ):
            found = await vg.ok("search_memory", query=query, limit=3)
            first = found["items"][0]
            assert (first["entity"], first["text"]) == (entity, text), (query, found["items"])
