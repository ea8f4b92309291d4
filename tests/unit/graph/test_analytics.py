"""service.graph.analytics and .mentions as the consolidation plane calls them: plain data in,
plain data out, the same answer on every run."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from service.graph import analytics as ga
from service.graph import paths
from service.graph.mentions import NameIndex, mentions


def _clique(prefix: str, n: int) -> list[tuple[str, str]]:
    return [(f"{prefix}{i}.md", f"{prefix}{j}.md") for i, j in permutations(range(n), 2)]


def test_pagerank_spreads_the_rank_of_notes_without_outlinks() -> None:
    g = ga.NoteGraph.build([("A.md", "B.md"), ("B.md", "C.md")], notes=["D.md"])
    rank = ga.pagerank(g)
    assert abs(rank.sum() - 1.0) < 1e-12
    # Solved by hand: A and D get the base share b (teleport plus the spread rank of C and D),
    # B gets b + d·A, C gets b + d·B; the four sum to 1, so b = 1 / (4 + 2d + d²).
    d = ga.DAMPING
    b = 1 / (4 + 2 * d + d * d)
    assert np.allclose(rank, [b, b * (1 + d), b * (1 + d + d * d), b], atol=1e-9)


def test_keep_leaves_a_note_out_before_anything_is_counted() -> None:
    edges = [("Hub.md", "X.md"), ("Secret/S.md", "Hub.md"), ("Hub.md", "picture.png")]
    g = ga.NoteGraph.build(edges, keep=lambda p: not p.startswith("Secret/"))
    assert g.nodes == ["Hub.md", "X.md"] and g.links == 1


def test_betweenness_is_exact_for_small_graphs_and_sampled_with_a_seed_above() -> None:
    path = ga.NoteGraph.build([("A.md", "B.md"), ("B.md", "C.md"), ("C.md", "D.md")])
    exact = ga.betweenness(path)
    assert exact.exact and np.allclose(exact.scores, [0, 2 / 3, 2 / 3, 0])
    assert np.allclose(ga.betweenness(path, directed=True).scores, [0, 1 / 3, 1 / 3, 0])
    ring = ga.NoteGraph.build([(f"R{i:03}.md", f"R{(i + 1) % 300:03}.md") for i in range(300)])
    one, two = ga.betweenness(ring, max_sources=32), ga.betweenness(ring, max_sources=32)
    assert not one.exact and one.sources == 32 and np.array_equal(one.scores, two.scores)


def test_shortest_path_prefers_links_followed_forwards_and_knows_when_there_is_none() -> None:
    g = ga.NoteGraph.build([("A.md", "B.md"), ("B.md", "A.md"), ("C.md", "B.md")], notes=["Z.md"])
    steps = paths.shortest_path(g, "A.md", "C.md")
    assert steps is not None
    assert [(s.source, s.target, s.direction) for s in steps] == [
        ("A.md", "B.md", "outlink"),
        ("B.md", "C.md", "backlink"),
    ]
    assert paths.shortest_path(g, "A.md", "C.md", directed=True) is None
    assert paths.shortest_path(g, "A.md", "Z.md") is None
    assert paths.shortest_path(g, "A.md", "A.md") == []


def test_louvain_splits_two_cliques_joined_by_one_link_the_same_way_every_time() -> None:
    g = ga.NoteGraph.build([*_clique("a", 6), *_clique("b", 6), ("a0.md", "b0.md")], notes=["z.md"])
    found = ga.communities(g)
    named = [[g.nodes[i] for i in grp] for grp in found.groups]
    assert named == [[f"a{i}.md" for i in range(6)], [f"b{i}.md" for i in range(6)], ["z.md"]]
    assert found.modularity > 0.4 and ga.communities(g).groups == found.groups


def test_adamic_adar_ranks_notes_sharing_more_and_rarer_neighbours_first() -> None:
    g = ga.NoteGraph.build(
        [("X.md", "H1.md"), ("X.md", "H2.md"), ("Y.md", "H1.md"), ("Y.md", "H2.md"), ("Z.md", "H1.md")]
    )
    assert [(p, shared) for p, _, shared in ga.adamic_adar(g, "X.md")] == [
        ("Y.md", ["H1.md", "H2.md"]),
        ("Z.md", ["H1.md"]),
    ]


def test_mentions_skip_frontmatter_code_links_and_linked_notes() -> None:
    names = NameIndex(
        [
            ("P/Launch Plan.md", "Launch Plan", ["kickoff"]),
            ("Ideas.md", "Ideas", []),
            ("2024-01-01.md", "2024-01-01", []),
        ]
    )
    text = (
        "---\nx: Ideas\n---\nThe launch plan, see [[Ideas]] and `Ideas`.\n"
        "```\nIdeas\n```\nKickoff on 2024-01-01; ideas.\n"
    )
    found = [(m.line, m.mention, m.target, m.kind) for m in mentions("Me.md", text, names)]
    assert found == [
        (3, "launch plan", "P/Launch Plan.md", "name"),
        (7, "Kickoff", "P/Launch Plan.md", "alias"),
        (7, "ideas", "Ideas.md", "name"),
    ]
    assert [m.mention for m in mentions("Me.md", text, names, linked=["Ideas.md"])] == ["launch plan", "Kickoff"]
    assert mentions("Ideas.md", "Ideas are mine.\n", names) == []  # a note's own name
    marked = "> [!ideas] The #ideas tag and #launch/plan too ^ideas\n"
    assert mentions("Me.md", marked, names) == []  # callout type, tags, block id


def test_a_limit_cuts_betweenness_and_louvain_at_its_deadline_and_stops_them_when_set() -> None:
    g = ga.NoteGraph.build([*_clique("a", 6), *_clique("b", 6), ("a0.md", "b0.md")])
    past = ga.Limit(deadline=0.0)
    cut = ga.betweenness(g, limit=past)
    assert cut.cut and not cut.exact and cut.sources == 1
    full = ga.betweenness(g)
    assert not full.cut and full.exact and full.sources == 12
    assert ga.betweenness(g, max_sources=4).sources == 4  # the first 4 of the same shuffled order
    found = ga.communities(g, limit=past)
    assert found.cut and sorted(i for grp in found.groups for i in grp) == list(range(12))
    stopped = ga.Limit()
    stopped.stop.set()
    for run in (ga.betweenness, ga.communities, ga.pagerank):
        try:
            run(g, limit=stopped)  # type: ignore[operator]
        except ga.Stopped:
            continue
        raise AssertionError(f"{run.__name__} ran on after its stop")
