"""Whether a note names a sensitive topic (`topical_notes`: the search items' `sensitive` flag)
is remembered by the guard that judged it (`Guard.topics`), under that guard's terms and tags.
It was a module-level dict (`_TOPICS`) keyed by the guard's fingerprint and the note id; the
fingerprint covers the secret patterns and keys only, not the topic terms and tags, so two apps
in one process with other `sensitive_terms` (or any other guard of other terms) shared verdicts:
a note of the second app that names its term, with the id and etag of a note the first app had
judged not topical, was not flagged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.tools.sensitive import guard_for
from tests.conftest import Harness, started

NOTES = {"Trip.md": "# Trip\n\nWe went down the river by kayak.\n"}


async def _flag(vg: Harness, query: str) -> bool:
    out = await vg.ok("search_text", query=query)
    [item] = out["items"]
    return bool(item["sensitive"])


async def test_apps_with_other_topic_terms_do_not_share_topic_verdicts(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES), search={"sensitive_terms": ["salary"]}) as a:
        await a.settled()
        assert await _flag(a, "kayak") is False  # judged: names no topic of a's
        async with started(make_vault(NOTES), search={"sensitive_terms": ["kayak"]}) as b:
            await b.settled()
            assert await _flag(b, "kayak") is True  # the same note id and etag, b's term
            guard = guard_for(b.app.services.settings, next(iter(b.app.vaults.values())))
            assert [named for _etag, named in guard.topics.values()] == [True]  # b's guard's own memo
        assert await _flag(a, "kayak") is False
