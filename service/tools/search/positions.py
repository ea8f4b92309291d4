"""search domain, positions: cursors of the rankings by similarity that keep their place.

rag_search and search_semantic rank by cosine similarity to the query, which a note keeps while
it is unchanged. Their pages are in the order (-similarity, path, chunk position) (`order`) and
a cursor records, next to the offset, the last item shown (`Mark`: its similarity rounded to 6
places, so that the same vectors compared again land on the same value, its path and chunk
position). The next page is the fresh ranking's items after that mark (`after`): a note edited,
added or deleted between pages moves, but an unchanged one is neither repeated nor skipped (an
offset into a fresh ranking skipped a note for each one that fell behind the cursor). The offset
only says how deep to look. A reranked ranking is not in similarity order: its pages keep to
the offset (`rerank_window`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from service.errors import ValidationFailed
from service.tools.models import decode_cursor, encode_cursor

if TYPE_CHECKING:
    from service.semantic.search import ChunkHit

T = TypeVar("T")
Mark = tuple[float, str, int]  # (-similarity rounded, path, chunk position): an item's place


def place(similarity: float, path: str, position: int = 0) -> Mark:
    return (-round(similarity, 6), path, position)


def of_chunk(hit: ChunkHit) -> Mark:
    """A chunk's place (rag_search's pages)."""
    return place(hit.similarity, hit.row.path, hit.row.position)


def of_note(hit: ChunkHit) -> Mark:
    """A note's place by its best chunk (search_semantic's pages)."""
    return place(hit.similarity, hit.row.path)


def order(items: list[T], key: Callable[[T], Mark]) -> list[T]:
    """`items` in page order: best similarity first, then by path and chunk position."""
    return sorted(items, key=key)


def after(items: list[T], key: Callable[[T], Mark], mark: Mark | None) -> list[T]:
    """Those of `items` (in page order) placed after `mark` (all when there is none)."""
    return items if mark is None else [i for i in items if key(i) > mark]


def read(cursor: str | None, **expect: Any) -> tuple[int, Mark | None]:
    """The offset and the mark of a cursor (a cursor without a mark: the offset alone)."""
    offset = decode_cursor(cursor, **expect)
    if not cursor:
        return offset, None
    data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    raw = data.get("m")
    if raw is None:
        return offset, None
    try:
        score, path, position = raw
        mark = (float(score), str(path), int(position))
    except (TypeError, ValueError):
        raise ValidationFailed("invalid cursor", details={"field": "cursor"}) from None
    return offset, mark


def write(offset: int, mark: Mark, **state: Any) -> str:
    """A cursor for the page after the item at `mark`, `offset` items in."""
    return encode_cursor(offset, m=list(mark), **state)
