"""A note with one very long line is chunked a segment at a time: the tokenizer, which holds
the interpreter for the whole of a call (a 20 MB line in one call was reported to stall the
server ~38 s), is never given more than `SEGMENT_CHARS` of it, and the pieces are those of one
pass over the whole text."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.embeddings import tokens
from tests.semantic.helpers import VAULT, semantic


class Recording:
    """The tokenizer, with the length of every text it is asked to encode."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.lengths = inner, [0]

    def encode(self, text: str, *args: Any, **kwargs: Any) -> Any:
        self.lengths.append(len(text))
        return self.inner.encode(text, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_a_note_of_one_long_line_is_tokenized_a_segment_at_a_time(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = Recording(tokens.tokenizer())
    monkeypatch.setattr(tokens, "tokenizer", lambda: recording)
    line = "word " * 40_000 + "the volcanic needle eruption\n"  # 200,000 characters, one paragraph
    async with semantic(make_vault({**VAULT, "Big.md": "# Big\n\n" + line})) as h:
        assert max(recording.lengths) <= tokens.SEGMENT_CHARS  # (a segment of "word"s holds many pieces)
        out = await h.ok("search_semantic", query="volcanic needle eruption", limit=1)
        assert out["items"][0]["path"] == "Big.md"  # the end of the line was chunked too
        status = (await h.ok("index_status"))["embeddings"]
        assert status["chunks"] > 150 and status["embedded"] == status["chunks"]


def test_segments_give_the_pieces_of_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = tokens.TokenCounter()
    rng = random.Random(7)
    words = ["alpha", "beta", "x" * 150, "naïve", "東京", "don't", "a.b.c", "supercalifragilistic"]
    text = " ".join(rng.choice(words) + rng.choice(["", "\n", "  ", ".\n\n"]) for _ in range(20_000))
    monkeypatch.setattr(tokens, "SEGMENT_CHARS", len(text))
    whole = counter.windows(text, 224, 32)
    for segment in (2_000, 5_000, 20_000):
        monkeypatch.setattr(tokens, "SEGMENT_CHARS", segment)
        assert counter.windows(text, 224, 32) == whole
    assert counter.windows("short text", 224, 32) == ["short text"]
