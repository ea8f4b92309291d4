"""Ranking single observations against a query, by words: BM25 over each observation's own words,
plus a smaller share for the words around it (the entity's name and type, and the observations
just before and after it in the entity's note), so a short turn such as "Yeah, I painted that
lake sunrise last year!" is found by what its neighbours say too. Words are lower-cased, common
function words dropped and plain English endings folded (`paints`, `painted`, `painting`)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP_WORDS = (
    "a an the and or of to in on at for by with from is are was were be been it its this that what when where "
    "who whom which how did do does i you he she we they me my your his her our their has have had will would "
    "can could about as so but if not no yes"
)
_STOP = frozenset(_STOP_WORDS.split())
_ENDINGS = ("ing", "ed", "es", "s")
NEAR_WEIGHT = 0.5
K1, B = 1.2, 0.75


def fold(word: str) -> str:
    for end in _ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def words(text: str) -> list[str]:
    return [fold(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


@dataclass(frozen=True, slots=True)
class Unit:
    own: Counter[str]  # the observation's words
    near: Counter[str]  # the words around it


def units_of(texts: Sequence[str], context: str) -> list[Unit]:
    """One unit per observation of one entity, in note order."""
    own = [Counter(words(t)) for t in texts]
    around = Counter(words(context))
    out = []
    for i, counts in enumerate(own):
        near = Counter(around)
        for j in (i - 1, i + 1):
            if 0 <= j < len(own):
                near.update(own[j])
        out.append(Unit(counts, near))
    return out


def _bm25(terms: Counter[str], counts: Counter[str], df: Counter[str], n: int, avg: float) -> float:
    length = sum(counts.values()) or 1
    score = 0.0
    for t, q in terms.items():
        tf = counts.get(t, 0)
        if tf:
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += q * idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
    return score


def rank(query: str, units: Sequence[Unit]) -> list[tuple[float, int]]:
    """(score, index) of the units that share a word with the query, best first."""
    terms = Counter(words(query))
    if not units or not terms:
        return []
    n = len(units)
    df_own: Counter[str] = Counter()
    df_near: Counter[str] = Counter()
    for u in units:
        df_own.update(t for t in terms if t in u.own)
        df_near.update(t for t in terms if t in u.near)
    avg_own = sum(sum(u.own.values()) for u in units) / n or 1.0
    avg_near = sum(sum(u.near.values()) for u in units) / n or 1.0
    scored = []
    for i, u in enumerate(units):
        score = _bm25(terms, u.own, df_own, n, avg_own) + NEAR_WEIGHT * _bm25(terms, u.near, df_near, n, avg_near)
        if score > 0:
            scored.append((score, i))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return scored
