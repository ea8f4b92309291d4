"""The budget's token counts (`service.embeddings.counting`) equal the builtin tokenizer's, on
ordinary text and on the characters where counting piece by piece could go wrong."""

from __future__ import annotations

from service.embeddings.counting import TokenCount
from service.embeddings.tokens import tokenizer
from service.tools.bundles.context import TokenMeasure
from tests.semantic.helpers import VAULT
from tests.semantic.test_sensitive_leaks import LEAKY

ODD = [
    "",
    "   ",
    "a  \n\n b\r\n\tc",
    "[MASK]x a[CLS]b [SEP][PAD][UNK] [not special]",  # added tokens match inside words
    "UNK" * 50,
    "a" * 101,  # longer than a WordPiece word: one [UNK]
    "é" * 120,
    "Ünïcödé café naïve İstanbul ΟΔΟΣ ΟΔΟΣ. ﬁle",
    "x\u00a0y nbsp\u00a0\u00a0x \u3000全角 a\u2028b\u2029c\u202fd\u205fe\u1680f",
    "a\x1fb a\x1cb a\x0bb c\x0cd e\x85f",  # whitespace to Python, deleted by the normaliser
    "x\x00y \ufffd hello\u200bworld a\u00adb",
    "don't e.g. #tag/x C++ a_b ##x `code` ~~strike~~ [[Link|alias]] x=1;y=2 12,345.67 $5 50%",
    "emoji 😀 ok, qwertyuiopzxcvbnm unbelievably antidisestablishmentarianism",
]


def _reference(text: str) -> int:
    return len(tokenizer().encode(text, add_special_tokens=False).ids)


def test_counts_equal_the_tokenizers() -> None:
    count = TokenCount()
    texts = [*ODD, *VAULT.values(), *LEAKY.values(), " ".join(ODD), "\n".join(VAULT.values())]
    for text in texts:
        assert count.count(text) == _reference(text), repr(text)
    for text in texts:  # again, from the remembered pieces
        assert count.count(text) == _reference(text), repr(text)


def test_the_budget_measure_counts_with_it() -> None:
    measure = TokenMeasure()
    for text in ODD:
        assert measure.size(text) == _reference(text)
        head = measure.cut(text, 3)
        assert measure.size(head) <= 3
