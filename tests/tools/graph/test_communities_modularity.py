"""find_communities through the dispatch chain on a vault whose modularity is counted by hand: two
triangles joined by one link, with a note linking itself, links written twice and both ways, and
notes with no link (each its own community, adding nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

# a0-a1-a2 and b0-b1-b2 triangles, a0-b0 joining them: 7 undirected links, 2m = 14, degrees 3,2,2 per
# triangle. Two groups: Q = 2 × (6/14 − (7/14)²) = 5/14 = 0.357142...
TRIANGLES = {
    "a/a0.md": "[[a1]] and [[a2]], again [[a1]]; across to [[b0]]. Myself: [[a0]].\n",
    "a/a1.md": "[[a2]] [[a0]]\n",
    "a/a2.md": "[[a0]]\n",
    "b/b0.md": "[[b1]] [[b2]] [[b1]] [[a0]]\n",
    "b/b1.md": "[[b2]] [[b1]]\n",
    "b/b2.md": "[[b0]]\n",
    "Alone.md": "no links\n",
    "Also alone.md": "[[Also alone]] only links itself\n",
}


@pytest.mark.covers("find_communities", "success")
async def test_modularity_is_the_hand_count_whatever_self_links_and_repeated_links(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(TRIANGLES)) as vg:
        await vg.indexed()
        out = await vg.ok("find_communities", min_size=1, members=3)
        # links inside: distinct links between two members, each way (a0 and a1 link each other)
        sizes = [(c["size"], c["links_inside"], sorted(m["path"] for m in c["central"])) for c in out["items"]]
        assert sizes[:2] == [(3, 5, ["a/a0.md", "a/a1.md", "a/a2.md"]), (3, 4, ["b/b0.md", "b/b1.md", "b/b2.md"])]
        assert sorted(s[2][0] for s in sizes[2:]) == ["Alone.md", "Also alone.md"]
        assert out["notes"] == 8 and out["total"] == 4 and out["cut"] is False
        assert out["modularity"] == round(5 / 14, 4)
        assert (await vg.ok("find_communities", min_size=1, members=3)) == out  # the same every time
