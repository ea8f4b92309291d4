"""Heading-aware chunks of a note, sized in model tokens.

- Sections split at headings; each chunk keeps its heading path.
- Blocks are packed whole into a chunk up to the token budget; code fences, math blocks and
  tables are never cut unless one alone exceeds the budget.
- A block over the budget (a long paragraph, a huge fence) is cut by a sliding window over its
  tokens with `overlap` tokens shared between neighbours.
- A note without body text gets one fallback chunk: its headings, aliases, tags and
  properties (the title when it has none of these), under its first heading.
- The text embedded for a chunk starts with the note title and heading path
  (`Title › Heading › Sub`, the title once when the first heading repeats it), so that a chunk
  is understood in its context; the budget is what is left of the model's limit after that
  header. The chunk's content hash is of this text, so an edit re-embeds only the chunks whose
  text changed and a move (same title) none.
- The model sees the passage without markup that carries no words (`model_text`, not applied
  to code and math blocks): table rule rows, `**` / `~~` / `==` markers, and wiki links
  reduced to what a reader sees (`[[Note#Part|shown]]` → `shown`, `[[Note#Part]]` →
  `Note Part`). The tokenizer makes every punctuation mark a token of its own, so this markup
  was about 7 % of the model's work on the standard workload; the passage shown to callers
  keeps it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from service.semantic.blocks import Block, blocks, sections

CHUNKER_VERSION = "3"  # 3: the fallback chunk holds the headings of a note of headings alone
MIN_BUDGET = 32
TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*\n?", re.M)
WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(?:#([^\]|\n]*))?(?:\|([^\]\n]*))?\]\]")
EMPHASIS = re.compile(r"\*\*|~~|==(?=\S)|(?<=\S)==")


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
    if path and path[0].casefold() == title.casefold():
        path = path[1:]  # a note whose first heading is its title: the title once
    return " › ".join((title, *path)) if title else " › ".join(path)


def _link(m: re.Match[str]) -> str:
    shown = m.group(3)
    if shown and shown.strip():
        return shown.strip()
    return " ".join(p.strip() for p in (m.group(1), m.group(2)) if p and p.strip())


def model_text(passage: str) -> str:
    """The passage as the model reads it (see the module doc)."""
    return EMPHASIS.sub("", WIKILINK.sub(_link, TABLE_RULE.sub("", passage))).strip() or passage


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

    def _pieces(self, blocks: list[Block], budget: int) -> list[tuple[str, str]]:
        """The passages of one section, whole blocks packed up to `budget` tokens: (the passage,
        what the model reads of it; code and math blocks are read as they are)."""
        counts = self.tokens.counts([b.text for b in blocks])
        out: list[tuple[str, str]] = []
        buf: list[tuple[str, str]] = []
        used = 0

        def flush() -> None:
            if buf:
                out.append(("\n\n".join(t for t, _ in buf), "\n\n".join(m for _, m in buf)))
                buf.clear()

        for block, n in zip(blocks, counts, strict=True):
            read = model_text if block.kind in ("text", "table") else str
            if n > budget:
                flush()
                used = 0
                out += [(w, read(w)) for w in self.tokens.windows(block.text, budget, min(self.overlap, budget // 2))]
                continue
            if buf and used + n + 1 > budget:
                flush()
                used = 0
            buf.append((block.text, read(block.text)))
            used += n + 1
        flush()
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
            for piece, seen in self._pieces(section.blocks, budget):
                embed = f"{head}\n{seen}" if head else seen
                out.append(Chunk(len(out), path, piece, embed, self.tokens.count(embed)))
        if out:
            return out
        # The fallback chunk: the note's headings (a note of headings alone has no section with
        # a block), aliases, tags and properties; the title when there is nothing else, so that
        # no chunk is an empty passage.
        heads = [b.text for b in blocks(body) if b.kind == "heading"]
        meta = _fallback_text(aliases or [], tags or [], properties or {})
        text = "\n".join(p for p in ("\n".join(heads), meta) if p) or title
        read = heads[1:] if heads and heads[0].casefold() == title.casefold() else heads  # the title once
        embed = "\n".join(p for p in (title, "\n".join(read), meta) if p) or "(empty note)"
        embed = self.tokens.windows(embed, self.max_tokens, 0)[0]
        return [Chunk(0, tuple(heads[:1]), text, embed, self.tokens.count(embed))]
