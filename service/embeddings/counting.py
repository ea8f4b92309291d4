"""Token counts in the builtin WordPiece tokenizer's tokens, most words counted without it.

`TokenCount.count(text)` equals `len(tokenizer().encode(text, add_special_tokens=False).ids)`,
faster: the budget of `context_for_query` measures a hundred chunk texts a call, and the
tokenizer spends ~0.2 ms on each (its normaliser builds character alignments we do not need).

A text's count is the sum of the counts of its pieces, the parts between runs of whitespace:
the normaliser turns whitespace into spaces and the pre-tokeniser splits words at spaces, so no
token spans two pieces. (Seven characters Python calls whitespace are control characters the
normaliser deletes instead; a text holding one is cut at space, tab, CR and LF only.)

A piece of printable ASCII without `[` (every added token of the vocabulary holds one) is
counted here as the tokenizer does it: lower-cased, cut at each ASCII punctuation mark (one
token each), and each run of letters and digits cut greedily into the longest vocabulary
entries (`##` before a continuation; a run with no such cut, or longer than 100 characters, is
one `[UNK]`). Any other piece is counted by the tokenizer itself. Piece counts are remembered
(bounded): words repeat from text to text.
"""

from __future__ import annotations

import functools
import re

from service.embeddings.tokens import tokenizer

PIECES_MAX = 50_000  # remembered piece counts (short strings: a few MB; a 10k-note vault has ~51,000)
MAX_WORD = 100  # the WordPiece model's max_input_chars_per_word
_SPLIT = re.compile(r"[ \t\n\r]+")
_DELETED_SPACES = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"  # whitespace to str.split(), control characters to BERT
_PARTS = re.compile(r"[a-z0-9]+|[^a-z0-9]")  # on a lower-cased printable ASCII piece


class TokenCount:
    """One per process (`counter()`); the memo is not locked: a lost entry is counted again."""

    def __init__(self) -> None:
        self._tok = tokenizer()
        self._vocab: dict[str, int] = self._tok.get_vocab()
        self._memo: dict[str, int] = {}

    def count(self, text: str) -> int:
        # str.split() also splits at characters the normaliser deletes (it joins what they separate)
        pieces = _SPLIT.split(text) if any(c in text for c in _DELETED_SPACES) else text.split()
        memo = self._memo
        if len(memo) >= PIECES_MAX:
            memo.clear()
        total = 0
        for piece in pieces:
            found = memo.get(piece)
            if found is None:
                found = memo[piece] = self._piece(piece)
            total += found
        return total

    def _piece(self, piece: str) -> int:
        if not piece:
            return 0
        if not (piece.isascii() and piece.isprintable()) or "[" in piece:
            return len(self._tok.encode(piece, add_special_tokens=False).ids)
        return sum(self._word(part) if part[0].isalnum() else 1 for part in _PARTS.findall(piece.lower()))

    def _word(self, word: str) -> int:
        """WordPiece tokens of one run of lower-case letters and digits."""
        if len(word) > MAX_WORD:
            return 1
        vocab = self._vocab
        if word in vocab:
            return 1
        pieces, start = 0, 0
        while start < len(word):
            end = len(word)
            while end > start and (word[start:end] if start == 0 else "##" + word[start:end]) not in vocab:
                end -= 1
            if end == start:
                return 1  # no cut: the whole word is [UNK]
            pieces += 1
            start = end
        return pieces


@functools.cache
def counter() -> TokenCount:
    return TokenCount()
