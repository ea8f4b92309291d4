"""context_for_query's remembered passage sizes are the app's (`Services.token_sizes`), kept by
digest and bounded. They were a module-level dict keyed by the passage text (`_SIZES`): every
app in the process shared it, and it held up to 50,000 whole texts (every passage measured and
every shortened head of a cut one), so its memory grew with the texts' length, not their number."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

from service.embeddings.sizes import TokenSizes
from service.tools.bundles.context import TokenMeasure
from tests.conftest import started
from tests.semantic.helpers import semantic
from tests.tools.bundles.test_context import NOTES, QUESTION


async def test_two_apps_do_not_share_their_remembered_sizes(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as a:
        out = await a.ok("context_for_query", query=QUESTION, max_tokens=150)
        assert out["passages"]
        kept = a.app.services.token_sizes
        assert len(kept) > 0
        async with started(make_vault(NOTES)) as b:
            assert b.app.services.token_sizes is not kept and len(b.app.services.token_sizes) == 0
        measure = TokenMeasure(kept)
        assert all(measure.size(p["text"]) == p["size"] for p in out["passages"])  # remembered sizes are right


def test_many_distinct_long_texts_keep_the_memo_small() -> None:
    """4,000 distinct 20 KB texts through a memo of 1,000: at most 1,000 sizes kept, and the memo
    holds none of the texts (keyed by text it held ~20 MB here)."""
    sizes = TokenSizes(max_texts=1_000)
    measure = TokenMeasure(sizes)
    assert measure.size("one two three") == 3 == sizes.size("one two three", lambda _t: 99)  # remembered
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(4_000):
            text = f"text {i} " + "x" * 20_000
            assert sizes.size(text, len) == len(text)
            assert len(sizes) <= 1_000
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 1_000_000, held
