"""Heading-aware chunks of a note, sized in model tokens.

- Sections split at headings; each chunk keeps its heading path.
- Blocks are packed whole into a chunk up to the token budget; code fences, math blocks and
  tables are never cut unless one alone exceeds the budget.
- A block over the budget (a long paragraph, a huge fence) is cut by a sliding window over its
  tokens with `overlap` tokens shared between neighbours.
- A note without body text gets one fallback chunk: title, aliases, tags and properties.
- The text embedded for a chunk starts with the note title and heading path
  (`Title › Heading › Sub`), so that a chunk is understood in its context; the budget is what
  is left of the model's limit after that header. The chunk's content hash is of this text, so
  an edit re-embeds only the chunks whose text changed and a move (same title) none.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Protocol

from service.semantic.blocks import Block, sections

CHUNKER_VERSION = "1"
MIN_BUDGET = 32


class Tokens(Protocol):
    def count(self, text: str) -> int: ...

    def counts(self, texts: list[str]) -> list[int]: ...

    def windows(self, text: str, size: int, overlap: int) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Chunk:
    position: int
    heading_path: tuple[str, ...]
    text: str  # the passage itself (shown to callers)
    embed_text: str  # header + passage (what the model sees)
    tokens: int

    @property
    def heading(self) -> str | None:
        return self.heading_path[-1] if self.heading_path else None

    @property
    def hash(self) -> str:
        return hashlib.blake2b(self.embed_text.encode(), digest_size=16).hexdigest()


def header(title: str, path: tuple[str, ...]) -> str:
    return " › ".join((title, *path)) if title else " › ".join(path)


def _fallback_text(aliases: list[str], tags: list[str], properties: dict[str, Any]) -> str:
    parts: list[str] = []
    if aliases:
        parts.append("Aliases: " + ", ".join(aliases))
    if tags:
        parts.append("Tags: " + ", ".join("#" + t for t in tags))
    for key, value in properties.items():
        if key in ("aliases", "alias", "tags", "tag"):
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        parts.append(f"{key}: {shown}")
    return "\n".join(parts)


class Chunker:
    def __init__(self, tokens: Tokens, *, max_tokens: int = 256, overlap: int = 32) -> None:
        self.tokens = tokens
        self.max_tokens = max_tokens
        self.overlap = overlap

    def _pieces(self, blocks: list[Block], budget: int) -> list[str]:
        """The passages of one section: whole blocks packed up to `budget` tokens."""
        counts = self.tokens.counts([b.text for b in blocks])
        out: list[str] = []
        buf: list[str] = []
        used = 0
        for block, n in zip(blocks, counts, strict=True):
            if n > budget:
                if buf:
                    out.append("\n\n".join(buf))
                    buf, used = [], 0
                out += self.tokens.windows(block.text, budget, min(self.overlap, budget // 2))
                continue
            if buf and used + n + 1 > budget:
                out.append("\n\n".join(buf))
                buf, used = [], 0
            buf.append(block.text)
            used += n + 1
        if buf:
            out.append("\n\n".join(buf))
        return out

    def chunks(
        self,
        title: str,
        body: str,
        *,
        aliases: list[str] | None = None,
        tags: list[str] | None = None,
        properties: dict[str, Any] | None = None,
    ) -> list[Chunk]:
        out: list[Chunk] = []
        for section in sections(body):
            path = tuple(section.path)
            head = header(title, path)
            budget = max(MIN_BUDGET, self.max_tokens - self.tokens.count(head) - 3)
            for piece in self._pieces(section.blocks, budget):
                embed = f"{head}\n{piece}" if head else piece
                out.append(Chunk(len(out), path, piece, embed, self.tokens.count(embed)))
        if out:
            return out
        meta = _fallback_text(aliases or [], tags or [], properties or {})
        embed = f"{title}\n{meta}".strip() or "(empty note)"
        embed = self.tokens.windows(embed, self.max_tokens, 0)[0] if embed else embed
        return [Chunk(0, (), meta, embed, self.tokens.count(embed))]
