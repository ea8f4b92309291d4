"""Job 3, stale items: captures left unfiled, experiences never promoted, observations whose source
note is gone.

- A capture still pending `[plane] stale_days` after it was taken (kind `stale_capture`); its
  plan discards it (`process_capture`), which a person may prefer to replace by filing it.
- An experience recorded that long ago and never promoted (kind `stale_experience`): to read.
- An observation whose `source` names a note of the vault (a `[[link]]` or a path ending in
  `.md`) that no longer exists (kind `orphaned_observation`): to read. A link may name any file
  (`[[Contract.pdf]]`): one the index knows is there. A note the vault's path ACL
  keeps from a reader counts as gone (`service.plane.reader`): the finding does not tell a hidden
  source from an absent one.
"""

from __future__ import annotations

import datetime as dt
import re

from service.indexer.runner import indexer_of
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.plane.reader import readable

_LINK = re.compile(r"^\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]$")
DAY = 86_400.0


def _name(rel: str) -> str:
    """A file's name as a link names it (`[[Contract.pdf]]`), any letter case."""
    return rel.rsplit("/", 1)[-1].lower()


def _day(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).date().isoformat()


class Stale:
    name = "stale"
    needs: tuple[Need, ...] = ("index",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        before = ctx.now - ctx.settings.stale_days * DAY
        out = await self.captures(ctx, before)
        out += await self.experiences(ctx, before)
        out += await self.sources(ctx)
        return out[: ctx.settings.max_findings]

    async def captures(self, ctx: JobContext, before: float) -> list[Finding]:
        rows = await ctx.state.fetchall(
            "SELECT id, text, created_at FROM capture_queue"
            " WHERE vault_id = ? AND status = 'pending' AND created_at < ? ORDER BY n LIMIT ?",
            (ctx.vault.id, before, ctx.settings.max_findings),
        )
        return [
            Finding(
                job=self.name,
                kind="stale_capture",
                key=f"stale_capture:{cid}",
                title=f"capture unfiled since {_day(float(at))}: {str(text)[:80]!r}",
                detail={"capture_id": cid, "text": text, "captured": _day(float(at))},
                plan={
                    "goal": f"discard capture {cid}",
                    "steps": [
                        {"id": "discard", "tool": "process_capture", "args": {"capture_id": cid, "action": "discard"}}
                    ],
                },
            )
            for cid, text, at in rows
        ]

    async def experiences(self, ctx: JobContext, before: float) -> list[Finding]:
        if ctx.experiences is None:
            return []
        page, _ = await ctx.experiences.page(
            ctx.vault.id, kind=None, tool=None, promoted=False, min_confidence=0.0, offset=0, limit=1000
        )
        return [
            Finding(
                job=self.name,
                kind="stale_experience",
                key=f"stale_experience:{e.id}",
                title=f"experience never promoted since {_day(e.created_at)}: {e.text[:80]!r}",
                detail={"experience_id": e.id, "kind": e.kind, "text": e.text, "recorded": _day(e.created_at)},
            )
            for e in page
            if e.created_at < before
        ][: ctx.settings.max_findings]

    async def sources(self, ctx: JobContext) -> list[Finding]:
        wanted: dict[str, list[tuple[str, str, str]]] = {}  # note name -> (entity note, entity, observation)
        for entry in ctx.recall.notes.values():
            for obs in entry.entity.observations:
                source = (obs.fields.get("source") or "").strip()
                found = _LINK.match(source)
                target = found.group(1) if found else source if source.lower().endswith(".md") else ""
                if target:
                    wanted.setdefault(target.strip(), []).append((entry.rel, entry.entity.name, obs.text))
        if not wanted:
            return []
        rows = await ctx.read(
            lambda c: c.execute("SELECT path, name FROM notes WHERE vault_id = ?", (ctx.vault.id,)).fetchall()
        )
        can_read = readable(ctx)  # a note a reader may not see is, for the finding, no note: gone as an absent one
        rows = [(p, n) for p, n in rows if can_read(str(p))]
        known = {str(p).lower() for p, _ in rows} | {str(p).lower().removesuffix(".md") for p, _ in rows}
        known |= {str(n) for _, n in rows}
        indexer = indexer_of(ctx.vault)  # the files that are no note (a PDF, an image) a link may name too
        files = indexer.files() if indexer is not None else []
        known |= await ctx.compute(lambda _: {k for f in files if can_read(f) for k in (f.lower(), _name(f))})
        out = []
        for target, uses in sorted(wanted.items()):
            key = target.lower()
            if key in known or key.removesuffix(".md") in known or key.rsplit("/", 1)[-1].removesuffix(".md") in known:
                continue
            for rel, entity, text in uses:
                out.append(
                    Finding(
                        job=self.name,
                        kind="orphaned_observation",
                        key=f"orphaned_observation:{rel}:{text[:120]}",
                        title=f"{entity}: the source {target!r} of {text[:60]!r} is gone",
                        detail={"entity": entity, "observation": text, "source": target},
                        paths=[rel],
                    )
                )
        return out
