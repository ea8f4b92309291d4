"""Graph analytics through the dispatch chain: central_notes, shortest_path, find_communities,
suggest_links on small vaults whose answers are known, with denied folders left out of the graph."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

# A star: the hub links to four leaves and each leaf links back.
STAR = {
    "Hub.md": "# Hub\n\n" + "\n".join(f"- [[Leaf {i}]]" for i in range(4)) + "\n",
    **{f"Leaves/Leaf {i}.md": f"# Leaf {i}\n\nBack to [[Hub]].\n" for i in range(4)},
    "Alone.md": "Nobody links here.\n",
}
# A path A -> B -> C <- D, and E alone.
PATH = {
    "A.md": "# A\n\nOn to [[B]].\n",
    "B.md": "# B\n\nThen [[C]].\n",
    "C.md": "# C\n",
    "D.md": "# D\n\nAlso [[C]].\n",
    "E.md": "# E\n",
}


def _clique(prefix: str, n: int) -> dict[str, str]:
    notes = {f"{prefix}{i}": [f"[[{prefix}{j}]]" for j in range(n) if j != i] for i in range(n)}
    return {f"{prefix}/{name}.md": " ".join(links) + "\n" for name, links in notes.items()}


# Two five-note cliques joined by one link (a0 -> b0).
CLIQUES = {**_clique("a", 5), **_clique("b", 5)}
CLIQUES["a/a0.md"] += "Bridge to [[b0]].\n"


@pytest.mark.covers("central_notes", "success")
async def test_the_hub_of_a_star_ranks_first_by_pagerank_and_betweenness(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(STAR)) as vg:
        await vg.indexed()
        pr = await vg.ok("central_notes")
        assert pr["items"][0]["path"] == "Hub.md" and pr["items"][0]["rank"] == 1
        assert pr["items"][0]["links_in"] == 4 and pr["items"][0]["links_out"] == 4
        assert pr["notes"] == 6 and pr["links"] == 8 and pr["exact"] is True
        leaves = [i["score"] for i in pr["items"][1:5]]
        assert len(set(leaves)) == 1 and pr["items"][0]["score"] > leaves[0] > pr["items"][5]["score"]
        assert pr["items"][5]["path"] == "Alone.md"  # no links: only the teleport share
        assert abs(sum(i["score"] for i in pr["items"]) - 1.0) < 1e-4
        bt = await vg.ok("central_notes", measure="betweenness")
        assert [(i["path"], i["score"]) for i in bt["items"][:2]] == [("Hub.md", 0.6), ("Alone.md", 0.0)]
        assert bt["exact"] is True and bt["sources"] == 6
        # Leaf and hub link each other: the path follows links forwards where it can.
        via = await vg.ok("shortest_path", source="Leaf 0", target="Leaf 1")
        assert [(h["source"], h["direction"], h["line"]) for h in via["hops"]] == [
            ("Leaves/Leaf 0.md", "outlink", 3),
            ("Hub.md", "outlink", 4),
        ]
        # A folder narrows the listing, not the graph the scores come from.
        only = await vg.ok("central_notes", folder="Leaves", limit=2)
        assert [i["path"] for i in only["items"]] == ["Leaves/Leaf 0.md", "Leaves/Leaf 1.md"]
        assert only["items"][0]["score"] == leaves[0] and only["next_cursor"]
        rest = await vg.ok("central_notes", folder="Leaves", limit=2, cursor=only["next_cursor"])
        assert [i["rank"] for i in rest["items"]] == [3, 4] and rest["next_cursor"] is None


async def test_betweenness_of_a_big_graph_is_sampled_with_a_fixed_seed(make_vault: Callable[..., Path]) -> None:
    ring = {f"R{i:02}.md": f"[[R{(i + 1) % 40:02}]]\n" for i in range(40)}
    ring["R00.md"] += "[[Spoke]]\n"
    ring["Spoke.md"] = "[[R00]]\n"
    async with started(make_vault(ring)) as vg:
        await vg.indexed()
        one = await vg.ok("central_notes", measure="betweenness", max_sources=16)
        two = await vg.ok("central_notes", measure="betweenness", max_sources=16)
        assert one["exact"] is False and one["sources"] == 16 and one["seed"] == 0
        assert one["items"] == two["items"]  # the same sample, the same scores
        exact = await vg.ok("central_notes", measure="betweenness", max_sources=64)
        assert exact["exact"] is True and exact["items"][0]["path"] == "R00.md"


@pytest.mark.covers("shortest_path", "success")
async def test_shortest_path_goes_either_way_or_along_links_only(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PATH)) as vg:
        await vg.indexed()
        out = await vg.ok("shortest_path", source="A", target="d")  # bare names, any case
        assert out["found"] is True and out["length"] == 3
        assert [n["path"] for n in out["notes"]] == ["A.md", "B.md", "C.md", "D.md"]
        assert [(h["source"], h["target"], h["direction"], h["line"], h["text"]) for h in out["hops"]] == [
            ("A.md", "B.md", "outlink", 3, "On to [[B]]."),
            ("B.md", "C.md", "outlink", 3, "Then [[C]]."),
            ("C.md", "D.md", "backlink", 3, "Also [[C]]."),
        ]
        along = await vg.ok("shortest_path", source="[[A]]", target="C.md", directed=True)
        assert along["length"] == 2 and along["directed"] is True
        against = await vg.ok("shortest_path", source="C", target="A", directed=True)
        assert against["found"] is False and against["hops"] == [] and against["length"] is None
        apart = await vg.ok("shortest_path", source="A", target="E")
        assert apart["found"] is False
        same = await vg.ok("shortest_path", source="A", target="A.md")
        assert same["found"] is True and same["length"] == 0 and [n["path"] for n in same["notes"]] == ["A.md"]


@pytest.mark.covers("find_communities", "success")
async def test_two_cliques_joined_by_one_link_are_two_communities(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**CLIQUES, "Alone.md": "no links\n"})) as vg:
        await vg.indexed()
        out = await vg.ok("find_communities", members=2)
        groups = [(c["id"], c["size"], c["links_inside"]) for c in out["items"]]
        assert groups == [(1, 5, 20), (2, 5, 20)] and out["total"] == 2
        assert out["notes"] == 11 and out["method"] == "louvain" and out["modularity"] > 0.4
        # Each community's most central note is its end of the bridge.
        assert [c["central"][0]["path"] for c in out["items"]] == ["b/b0.md", "a/a0.md"] or [
            c["central"][0]["path"] for c in out["items"]
        ] == ["a/a0.md", "b/b0.md"]
        assert all(len(c["central"]) == 2 for c in out["items"])
        with_single = await vg.ok("find_communities", min_size=1, limit=2)
        assert with_single["total"] == 3 and with_single["next_cursor"]
        last = await vg.ok("find_communities", min_size=1, limit=2, cursor=with_single["next_cursor"])
        assert [(c["size"], c["central"][0]["path"]) for c in last["items"]] == [(1, "Alone.md")]
        assert (await vg.ok("find_communities", members=2)) == out  # deterministic


MENTIONS = {
    "Projects/Launch Plan.md": "---\naliases: [Kickoff]\n---\n# Launch Plan\n",
    "Ideas.md": "# Ideas\n",
    "Daily/2024-01-01.md": "day\n",
    "Me.md": "---\nnote: Ideas in the frontmatter\n---\n"
    "The launch plan is ready, see the KICKOFF.\n"
    "```\nIdeas in code\n```\n"
    "Inline `Ideas` and [a link to Ideas](Other.md) and 2024-01-01.\n"
    "Some ideas here.\n",
    "Linked.md": "[[Ideas]] and more Ideas.\n",
}


@pytest.mark.covers("suggest_links", "success")
async def test_unlinked_mentions_of_titles_and_aliases_with_the_line(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(MENTIONS)) as vg:
        await vg.indexed()
        out = await vg.ok("suggest_links", path="me")
        got = [(i["line"], i["column"], i["mention"], i["target"], i["kind"], i["link"]) for i in out["items"]]
        assert got == [
            (4, 5, "launch plan", "Projects/Launch Plan.md", "name", "[[Launch Plan|launch plan]]"),
            (4, 35, "KICKOFF", "Projects/Launch Plan.md", "alias", "[[Launch Plan|KICKOFF]]"),
            (9, 6, "ideas", "Ideas.md", "name", "[[Ideas|ideas]]"),
        ]
        assert out["items"][0]["text"] == "The launch plan is ready, see the KICKOFF."
        assert out["items"][0]["path"] == "Me.md" and out["scanned"] == 1
        # A note that links a target already gets no suggestion for it.
        assert (await vg.ok("suggest_links", path="Linked"))["items"] == []
        vault = await vg.ok("suggest_links", limit=2)
        assert [(i["path"], i["line"]) for i in vault["items"]] == [("Me.md", 4), ("Me.md", 4)]
        rest = await vg.ok("suggest_links", limit=2, cursor=vault["next_cursor"])
        assert [(i["path"], i["line"]) for i in rest["items"]] == [("Me.md", 9)] and rest["next_cursor"] is None


async def test_related_notes_share_neighbours(make_vault: Callable[..., Path]) -> None:
    files = {"X.md": "[[H1]] [[H2]]\n", "Y.md": "[[H1]] [[H2]]\n", "Z.md": "[[H1]]\n", "H1.md": "", "H2.md": ""}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("suggest_links", path="X", related=5)
        assert [(r["path"], r["shared"]) for r in out["related"]] == [("Y.md", ["H1.md", "H2.md"]), ("Z.md", ["H1.md"])]
        assert out["related"][0]["score"] > out["related"][1]["score"]


ACL = {"prefix_rules": [{"path": "Secret", "read": "deny"}]}
GUARDED = {
    **STAR,
    # The secret notes would make Leaf 0 the bridge to a second star and carry a path from Alone.
    **{f"Secret/Sierra {i}.md": "[[Leaf 0]] [[Alone]]\n" for i in range(6)},
    "Leaves/Leaf 3.md": "# Leaf 3\n\nBack to [[Hub]]. The Sierra 1 note and Secret things.\n",
}


async def test_denied_notes_are_out_of_the_graph_before_anything_is_computed(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(GUARDED), acl=ACL) as vg:
        await vg.indexed()
        pr = await vg.ok("central_notes", limit=100)
        assert pr["notes"] == 6 and pr["links"] == 8  # as if the secret folder did not exist
        assert all(not i["path"].startswith("Secret/") for i in pr["items"])
        leaves = {i["path"]: (i["score"], i["links_in"]) for i in pr["items"] if i["path"].startswith("Leaves/")}
        assert len({s for s, _ in leaves.values()}) == 1 and {n for _, n in leaves.values()} == {1}
        bt = await vg.ok("central_notes", measure="betweenness")
        assert bt["items"][0]["path"] == "Hub.md" and bt["items"][1]["score"] == 0.0
        assert (await vg.ok("shortest_path", source="Alone", target="Hub"))["found"] is False
        await vg.err("shortest_path", "acl_denied", source="Secret/Sierra 1", target="Hub")
        await vg.err("shortest_path", "note_not_found", source="Sierra 1", target="Hub")  # nor by its name
        communities = await vg.ok("find_communities", min_size=1, members=100)
        members = [m["path"] for c in communities["items"] for m in c["central"]]
        assert communities["notes"] == 6 and not [p for p in members if p.startswith("Secret/")]
        assert (await vg.ok("suggest_links", path="Leaf 3"))["items"] == []  # Sierra 1 is never suggested
        every = await vg.ok("suggest_links", limit=100)
        assert not [i for i in every["items"] if i["path"].startswith("Secret/") or i["target"].startswith("Secret/")]


@pytest.mark.covers("central_notes", "failure")
@pytest.mark.covers("shortest_path", "failure")
@pytest.mark.covers("find_communities", "failure")
@pytest.mark.covers("suggest_links", "failure")
async def test_graph_analytics_fail_on_unknown_notes_and_bad_arguments(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PATH)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.err("central_notes", "note_not_found", folder="No/Such")
        await vg.err("central_notes", "validation_error", measure="degree")
        await vg.err("central_notes", "validation_error", cursor="bm90LWEtY3Vyc29y")
        missing = await vg.err("shortest_path", "note_not_found", source="A", target="Nope")
        assert missing["details"]["path"] == "Nope.md"
        await vg.err("shortest_path", "path_invalid", source="../etc/passwd", target="A")
        await vg.err("find_communities", "validation_error", min_size=0)
        first = await vg.ok("central_notes", limit=1)
        await vg.err("find_communities", "validation_error", cursor=first["next_cursor"])  # another query's cursor
        await vg.err("suggest_links", "note_not_found", path="Nope")
        await vg.err("suggest_links", "validation_error", related=99)
        assert vg.snapshot() == before
