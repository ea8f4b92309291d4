"""What `rag_search` suggests keeping in memory (seed 003's `memory_suggestion`).

`[memory] suggest_patterns` names kinds of facts worth remembering (financial, health,
commitments by default) by the words or marks that show them (`owe`, `$`, `#mentalhealth`...).
When a returned passage holds one, the first such passage gives a suggestion: a key (the kind
and the note's title, as a `memory_store` key), the sentence that holds the match as the value,
and the note as the source. The agent asks its user and, if they agree, calls `memory_store`
with exactly these; nothing is stored by the search. Words match whole and case-blind; a pattern
that is not a word (`$`, a tag) matches as written. Touches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_VALUE = 300  # characters of the suggested value
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@dataclass(frozen=True, slots=True)
class Suggestion:
    key: str
    value: str
    source: str
    kind: str
    matched: str


def _matcher(term: str) -> re.Pattern[str]:
    if re.fullmatch(r"[\w ]+", term):
        return re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE)
    return re.compile(re.escape(term), re.IGNORECASE)


def compile_patterns(patterns: Mapping[str, Iterable[str]]) -> list[tuple[str, str, re.Pattern[str]]]:
    return [(kind, term, _matcher(term)) for kind, terms in patterns.items() for term in terms if term.strip()]


def suggest(
    passages: Iterable[tuple[str, str, str]], patterns: list[tuple[str, str, re.Pattern[str]]]
) -> Suggestion | None:
    """The suggestion from the first passage (text, note path, note title) a pattern matches."""
    for text, path, title in passages:
        for kind, term, pattern in patterns:
            found = pattern.search(text)
            if found is None:
                continue
            value = next(
                (m.group(0).strip() for m in _SENTENCE.finditer(text) if m.start() <= found.start() < m.end()),
                text.strip(),
            )
            slug = re.sub(r"[^\w]+", "_", title.lower()).strip("_") or "note"
            return Suggestion(
                key=f"{kind}_{slug}"[:200],
                value=" ".join(value.split())[:MAX_VALUE],
                source=path,
                kind=kind,
                matched=term,
            )
    return None
