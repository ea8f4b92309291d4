"""Job 5, topic maps: groups of notes that link among themselves (Louvain communities of the
undirected link graph with a fixed seed, `service.graph.analytics`: a run gives the same groups
for the same vault),
each proposed as a map of content: a new note linking its most linked members, to create under
`Maps/` (`create_note`). A group of fewer than `MIN_SIZE` notes, or one that already has a note
linking most of it (an existing map), is not proposed. The graph is the one a reader sees: a note
the vault's path ACL keeps from a reader is not in it (`service.plane.reader`).
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable

from service.graph.analytics import Limit, NoteGraph, communities
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.plane.quoting import inert, link_to
from service.plane.reader import readable

MIN_SIZE = 5
MAP_LINKS = 30  # members a proposed map links (the most linked first)
COVERED = 0.6  # a note linking this share of a group is its map already


class TopicMaps:
    name = "topics"
    needs: tuple[Need, ...] = ("index",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        vid = ctx.vault.id

        def read(c: sqlite3.Connection) -> tuple[list[tuple[str, str]], dict[str, str]]:
            # each path once, however many links name it (a row's are new strings): at 100k notes and
            # 580k links the edges took 142 MB, now 50
            paths: dict[str, str] = {}
            one = paths.setdefault
            edges = [
                (one(a, a), one(b, b))
                for a, b in c.execute(
                    "SELECT n.path, l.target_path FROM links l JOIN notes n ON n.id = l.src_id"
                    " WHERE l.vault_id = ? AND l.target_path LIKE '%.md'",
                    (vid,),
                )
            ]
            titles = {str(p): str(t) for p, t in c.execute("SELECT path, title FROM notes WHERE vault_id = ?", (vid,))}
            return edges, titles

        edges, titles = await ctx.read(read)
        can_read = readable(ctx)  # a map links no note a reader may not see, nor counts its links
        await ctx.pause()
        # the graph of every note and its Louvain groups: ~11 s of CPU at 100k notes on a loaded 2-core
        # machine, Louvain 6.6 of it (docs/benchmarks.md, "Louvain in flat arrays")
        return await ctx.compute(lambda limit: self.maps(ctx, edges, titles, can_read, limit))

    def maps(
        self,
        ctx: JobContext,
        edges: list[tuple[str, str]],
        titles: dict[str, str],
        can_read: Callable[[str], bool],
        limit: Limit,
    ) -> list[Finding]:
        """The proposed maps (in a worker thread: `JobContext.compute`)."""
        edges = [(a, b) for a, b in edges if can_read(a) and can_read(b)]
        out_links: dict[str, set[str]] = defaultdict(set)
        degree: Counter[str] = Counter()
        for a, b in edges:
            out_links[a].add(b)
            degree[a] += 1
            degree[b] += 1
        out = []
        graph = NoteGraph.build(edges)
        for indices in communities(graph, limit=limit).groups:
            if len(indices) < MIN_SIZE:
                break
            group = [graph.nodes[i] for i in indices]
            members = set(group)
            if any(len(out_links[n] & members) >= COVERED * (len(members) - 1) for n in group):
                continue  # one of them maps the group already
            central = sorted(group, key=lambda n: (-degree[n], n))
            head = titles.get(central[0], central[0])
            name = "".join(ch for ch in head if ch not in '\\/:*?"<>|#^[]').strip() or "Topic"
            links = "\n".join(f"- {link_to(p)}" for p in central[:MAP_LINKS])  # a path holding %%: no comment
            hub = link_to(central[0])
            content = f"# {inert(name)} (map)\n\nNotes that link among themselves around {hub}:\n\n{links}\n"
            out.append(
                Finding(
                    job=self.name,
                    kind="topic_map",
                    key=f"topic_map:{central[0]}",
                    title=f"{len(group)} notes around {head!r} have no map",
                    detail={"size": len(group), "central": central[:10]},
                    plan={
                        "goal": f"a map of the notes around {head}",
                        "steps": [
                            {
                                "id": "map",
                                "tool": "create_note",
                                "args": {"path": f"Maps/{name} map.md", "content": content},
                            }
                        ],
                    },
                )
            )
            if len(out) >= ctx.settings.max_findings:
                break
        return out
