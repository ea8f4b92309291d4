"""A run's whole-vault work in Python runs off the event loop (T3 s61 defect 4): at 100k notes the
audit's name matching (difflib over every broken link) and the topic maps' link graph and Louvain
groups took 20-40 s on the loop thread, and every other call, the server's keep-alive pings and a
new session's initialize waited for them. Here each of them (and the unlinked mentions' matching,
a 10k vault's costliest work) records the thread it ran on during a run_consolidation through the
whole dispatch chain; none may be the loop's."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.graph import analytics
from service.plane import audit, topics
from tests.conftest import started

VAULT = {
    "Home.md": "# Home\n\nSee [[Projets Alpha]] and [[Other]]. #ToDo\n",
    "Projects Alpha.md": "# Projects Alpha\n\nBack to [[Home]].\n",
    "Other.md": "# Other\n\nBack to [[Home]] and [[Third]].\n",
    "Third.md": "# Third\n\nAlso [[Home]] and [[Other]]. #todo\n",
    "Lonely.md": "# Lonely\n\nNobody links here.\n",
    "Club.md": "# Club\n\nThe Lonely hearts club, see [[Home]].\n",  # names a title: the mention matching
}


async def test_matching_and_grouping_run_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran_on: dict[str, set[int]] = {}

    def on_thread(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            ran_on.setdefault(name, set()).add(threading.get_ident())
            return fn(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(difflib, "get_close_matches", on_thread("close_matches", difflib.get_close_matches))
    monkeypatch.setattr(topics, "communities", on_thread("communities", analytics.communities))
    build = on_thread("graph", analytics.NoteGraph.build.__func__)  # type: ignore[attr-defined]
    monkeypatch.setattr(topics.NoteGraph, "build", classmethod(build))
    monkeypatch.setattr(audit.Audit, "aliases", on_thread("aliases", audit.Audit.aliases))
    monkeypatch.setattr(audit, "prose", on_thread("mentions", audit.prose))
    loop_thread = threading.get_ident()
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        run = await vg.ok("run_consolidation", wait=True, jobs=["audit", "topics"])
        found = (await vg.ok("list_findings", limit=100))["items"]
    assert {j["job"]: j["status"] for j in run["jobs"]} == {"audit": "ran", "topics": "ran"}
    assert any(f["kind"] == "broken_link" and f["detail"]["likely"] == "Projects Alpha" for f in found)
    assert any(f["kind"] == "unlinked_mention" and f["detail"]["path"] == "Club.md" for f in found)
    assert set(ran_on) == {"close_matches", "communities", "graph", "aliases", "mentions"}  # each ran
    on_loop = sorted(name for name, threads in ran_on.items() if loop_thread in threads)
    assert on_loop == []
