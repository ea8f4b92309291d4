"""What `list_findings` shows of a finding's texts: as the search tools show note text that was not
asked for by path. The duplicates and contradictions jobs quote observations (in the title, cut
at 80 characters, in the detail and in the plan's arguments); under the vault's `[sensitive]`
mode (`redact` by default) a secret in them is shown as `[REDACTED:<kind>]`, and so is any word
of it in another of the finding's texts, also glued to the letters of a repr escape (a tab
before it is `\\t` in a title), and a word a title's quote ends inside a secret (cut at 80
characters). The stored finding is unchanged: `apply_finding` runs the plan as it was found."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from service.plane.findings import Finding
from service.retrieval.sensitive import Guard

# A word cut short where a title's quote ends (`'…sk-ant-abc'`): the title quotes 80 characters
# with repr, whose escapes (`\t`, `\xa0`) may glue letters to the word's start.
_CUT = re.compile(r"\w{4,}(?=['\"])")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _mapped(value: Any, show: Any) -> Any:
    if isinstance(value, str):
        return show(value)
    if isinstance(value, dict):
        return {k: _mapped(v, show) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(v, show) for v in value]
    return value


def _cut(word: str, secrets: frozenset[str]) -> bool:
    """Whether `word` ends a quote inside a secret: from its start, or after up to three letters
    of a repr escape, it is the start of one of the secret words."""
    return any(len(word) - i >= 4 and any(w.startswith(word[i:]) for w in secrets) for i in range(4))


def shown(guard: Guard, found: Finding) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """The finding's title, detail and plan as the caller may see them under `guard`."""
    if not guard.redacts:
        return found.title, found.detail, found.plan
    texts = [found.title, *_strings(found.detail), *_strings(found.plan)]
    words: frozenset[str] = frozenset().union(*(guard.secret_words(t) for t in texts))
    if not words and not any(guard.spans(t) for t in texts):
        return found.title, found.detail, found.plan
    inside = sorted((w for w in words if len(w) >= 6), key=len, reverse=True)

    def show(text: str) -> str:
        out = guard.excerpt(text, words)
        for word in inside:  # glued to a repr escape's letters (`\tghp_…`): no word of its own
            out = out.replace(word, "[REDACTED]")
        if words:
            out = _CUT.sub(lambda m: "[REDACTED]" if _cut(m.group(), words) else m.group(), out)
        return out

    return show(found.title), _mapped(found.detail, show), _mapped(found.plan, show)
