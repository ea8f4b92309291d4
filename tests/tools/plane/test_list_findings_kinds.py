"""list_findings with a `kind` that is no finding kind — the job's name ('duplicates' for
'duplicate'), a misspelling — is a validation_error naming the kinds (and the closest), through
the dispatch chain; before, it answered no finding at all (total 0), as if there were none of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.settings.plane import FINDING_KINDS
from tests.conftest import started
from tests.tools.plane.test_plane import PLANTED, run


async def test_a_kind_that_is_no_finding_kind_is_refused_with_the_kinds(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        assert (await vg.ok("list_findings", kind="duplicate"))["total"] >= 1
        err = await vg.err("list_findings", "validation_error", kind="duplicates")
        assert err["details"]["field"] == "kind" and err["details"]["kinds"] == sorted(FINDING_KINDS), err
        assert "did you mean 'duplicate'" in err["message"], err
        await vg.err("list_findings", "validation_error", kind="brokenlink")
        assert (await vg.ok("list_findings", kind="topic_map"))["total"] == 0  # a kind with none found: fine
