"""The complete ranking behind search_notes and the hybrid mode of search_vault: BM25 text hits
fused with tag/property matches (`service.retrieval.fusion`), with the snippet lookup of a page."""

from __future__ import annotations

import sqlite3
from typing import Literal

from service.retrieval import fusion, text
from service.retrieval import properties as props
from service.retrieval import tags as tag_q
from service.retrieval.query import parse_query
from service.tools.context import ToolContext
from service.tools.search_common import readable, run


def pass_limit(query: str | None, limit: int) -> int | None:
    """The page size when it decides whether a relaxed text pass runs (then a cursor keeps it)."""
    return limit if query and parse_query(query).relaxed is not None else None


class Fused:
    """A complete ranking (every readable hit, best first) plus snippet lookup for a page."""

    def __init__(self, ranked: list[text.TextHit], match: str | None, relaxed: str | None = None) -> None:
        self.ranked = ranked
        relaxed_used = relaxed is not None and any(h.match == "any" for h in ranked)
        self.text_match: Literal["all", "any"] | None = None if match is None else "any" if relaxed_used else "all"
        self.match = relaxed if relaxed_used else match

    async def snippets(self, ctx: ToolContext, page: list[text.TextHit]) -> dict[int, str]:
        ids = [h.note_id for h in page]
        match = self.match
        return await run(ctx, lambda conn: fusion.snippets(conn, match, ids))


async def fused(
    ctx: ToolContext,
    *,
    query: str | None,
    tag_list: list[str],
    filters: list[props.Filter],
    folders: list[str],
    match: Literal["all", "any"],
    limit: int,
    mode: str = "hybrid",
) -> Fused:
    """Rank notes for search_notes / hybrid search_vault (`service.retrieval.fusion`)."""
    parsed = parse_query(query) if query else None
    match_expr = parsed.match if parsed is not None else None
    relaxed_expr = parsed.relaxed if parsed is not None else None
    wanted = [tag_q.normalize(t) for t in tag_list]
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    def compute(conn: sqlite3.Connection) -> list[text.TextHit]:
        return fusion.rank(
            conn,
            vault_id,
            match_expr=match_expr,
            wanted=wanted,
            filters=filters,
            folders=folders,
            match=match,
            mode=mode,
            can_read=can_read,
            relaxed_expr=relaxed_expr,
            want=limit,
        )

    return Fused(await run(ctx, compute), match_expr, relaxed_expr)
