"""The sensitive-content guard of the call's vault (`service.retrieval.sensitive.Guard`).

`guard_of(ctx)` builds it from `[sensitive]`, the vault's `sensitive_mode` and `[search]
sensitive_terms` / `sensitive_tags`, once per distinct configuration (cached). Tools that show
note text they did not read on purpose (snippets, chunks, passages, bundles) pass it through
`guard.show`; `guard.sensitive` is the `sensitive` flag of their results.
"""

from __future__ import annotations

from functools import lru_cache

from service.retrieval.sensitive import Guard
from service.settings import SensitiveMode
from service.tools.context import ToolContext


@lru_cache(maxsize=32)
def _build(
    mode: SensitiveMode,
    builtin: bool,
    patterns: tuple[tuple[str, str], ...],
    keys: tuple[str, ...],
    terms: tuple[str, ...],
    tags: tuple[str, ...],
) -> Guard:
    return Guard.build(mode, builtin=builtin, patterns=dict(patterns), secret_keys=keys, terms=terms, tags=tags)


def guard_of(ctx: ToolContext) -> Guard:
    settings = ctx.services.settings
    conf = settings.sensitive
    return _build(
        ctx.vault.config.sensitive_mode or conf.mode,
        conf.builtin_patterns,
        tuple(sorted(conf.patterns.items())),
        tuple(conf.secret_keys),
        tuple(settings.search.sensitive_terms),
        tuple(settings.search.sensitive_tags),
    )
