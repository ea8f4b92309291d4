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


async def test_a_new_note_taking_a_deleted_notes_id_and_content_is_judged_by_its_own_title(
    make_vault: Callable[..., Path],
) -> None:
    """Note ids are reused (the newest note's id, once deleted, is the next note's) and an etag is
    the content's: a note whose title is a topic (a `sensitive_tags` entry, which a title or
    heading names), made with the very content of the note just deleted, had that note's verdict
    (no topic) and was not flagged."""
    body = "# Plan\n\nThe numbers for next year.\n"
    async with started(make_vault({"Home.md": "# Home\n"}), search={"sensitive_tags": ["salary"]}) as vg:
        await vg.indexed()  # Home.md first: Budget.md is then the newest note, whose id the next one takes
        await vg.ok("create_note", path="Budget.md", content=body)
        await vg.settled()
        assert await _flag(vg, "numbers") is False
        [old] = await vg.app.db.fetchall("SELECT id FROM notes WHERE path = 'Budget.md'")
        await vg.confirmed("delete_note", path="Budget.md", permanent=True)
        await vg.ok("create_note", path="Salary.md", content=body)
        await vg.settled()
        [new] = await vg.app.db.fetchall("SELECT id FROM notes WHERE path = 'Salary.md'")
        assert new[0] == old[0]  # the id the deleted note had
        assert await _flag(vg, "numbers") is True
