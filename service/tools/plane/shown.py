"""What `list_findings` shows of a finding's texts: as the search tools show note text that was not
asked for by path. The duplicates and contradictions jobs quote observations (in the title, cut
at 80 characters, in the detail and in the plan's arguments); under the vault's `[sensitive]`
mode (`redact` by default) a secret in them is shown as `[REDACTED:<kind>]`, and so is any word
of it in another of the finding's texts (a title may cut a secret short: a word of six or more
characters that a secret's word begins with is redacted too). The stored finding is unchanged:
`apply_finding` runs the plan as it was found."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from service.plane.findings import Finding
from service.retrieval.sensitive import Guard

_PART = re.compile(r"\w{6,}")


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


def shown(guard: Guard, found: Finding) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """The finding's title, detail and plan as the caller may see them under `guard`."""
    if not guard.redacts:
        return found.title, found.detail, found.plan
    texts = [found.title, *_strings(found.detail), *_strings(found.plan)]
    words: frozenset[str] = frozenset().union(*(guard.secret_words(t) for t in texts))
    if not words and not any(guard.spans(t) for t in texts):
        return found.title, found.detail, found.plan

    def show(text: str) -> str:
        out = guard.excerpt(text, words)
        if words:  # a secret's word cut short (a title quotes 80 characters)
            out = _PART.sub(lambda m: "[REDACTED]" if any(w.startswith(m.group()) for w in words) else m.group(), out)
        return out

    return show(found.title), _mapped(found.detail, show), _mapped(found.plan, show)
