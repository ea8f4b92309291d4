"""Job 4, the vault audit: broken links with their likely target, orphans, tag variants, alias
collisions and unlinked mentions (link suggestions). Reads the index only.

- `broken_link`: a link target no note (nor file: an image, a `.base`) resolves, with the note name
  it most likely meant (a close spelling of a note's name, title or alias); its plan rewrites every
  link to it (`rewrite_links`).
- `orphan`: a note no link reaches and that links nowhere (the memory folder, the vault's own
  folders and the template folders of the Templates and Templater settings aside).
- `tag_variant`: tags that differ only by case, `-`/`_`, or a plural `s` (`#ToDo`, `#todo`,
  `#to-do`, `#todos`); the plan renames the rarer spellings to the most used one (`rename_tag`).
- `alias_collision`: one alias (or an alias and a note's name) shared by several notes: a link
  to it is ambiguous.
- `unlinked_mention`: a note's prose names another note's title (the very words, case-blind; a
  note of the same name is a namesake, not a mention; the text of links, embeds and code is no
  prose: `service.graph.mentions.prose`) without
  linking it; the most linked notes' titles are looked for first (`MOST_LINKED`), then the other
  notes' in turn, through the full-text index, as many as fit in one run's budget
  (`MENTIONS_BUDGET_S`, at most `MENTION_TITLES`): every title of a vault of a few thousand notes
  in one run; in a larger one each run goes on in path order after the last title it looked for
  (kept from run to run, `JobContext.kept`), so successive runs look for every title. A mention of
  a title this run did not look for stays as it was (not gone: `JobContext.spare`).

The notes under `Digests/` are the plane's own output, which links and quotes the notes that
changed: their links, tags and text count for none of these (a digest linking a note does not make
it less an orphan, nor does a broken link it copies make one more to rewrite).

The audit sees the vault as a reader does (`service.plane.reader`): a note the vault's path ACL
keeps from a reader is no note — a link to it is a broken link (its likely target is chosen among
the notes a reader sees), its links and text count for nothing, and no finding names it. A finding
is about the notes it names (a mention's target, a broken link's likely target among them), so a
caller whose token narrows what it may read is shown only those it may read every one of.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
import sqlite3
import time
from collections import Counter, defaultdict
from functools import partial
from typing import Any

from service.graph.analytics import Limit
from service.graph.mentions import prose
from service.plane.digest import FOLDER
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.plane.reader import readable
from service.retrieval.unspaced import searched, unspaced
from service.storage.db import DbOperationalError, schema_changed
from service.vault.settings_files import template_folders

# titles looked for as unlinked mentions a run at most (the most linked notes first, then the others
# in turn, within `MENTIONS_BUDGET_S`): a title costs well under a millisecond where few notes name it
# (599 titles: 34 ms), so a vault of a few thousand notes is looked at whole in one run
MENTION_TITLES = 5000
MOST_LINKED = 200  # of those, the most linked notes' at most: the others' turn comes at every run
MENTIONS_PER_TITLE = 20
MIN_TITLE = 5  # characters: shorter titles are too common as words
MIN_UNSPACED = 3  # of a title all in a script without spaces (機械学習, ภาษาไทย): a 3-character word is rare
_LETTER = re.compile(r"[^\W\d_]")  # a title of digits and signs (a date) is looked for as no mention
MENTIONS_BUDGET_S = 10.0  # the longest one run looks for unlinked mentions
OWN = f"{FOLDER}/%"  # the plane's own notes (digests, summaries): their links, tags and text do not count
_NOT_OWN = "(SELECT id FROM notes WHERE vault_id = ? AND path LIKE ?)"
# the notes most linked (by notes not the plane's own): every link counted from the links' target index
# alone (`links_by_target`), less the few links of the plane's own notes (through `links_by_src`), not
# each link's row read for its source: that held a reader thread 1.7-3.3 s at 100k notes (632k links)
_MOST_LINKED = (
    "WITH every AS (SELECT target_path, COUNT(*) AS n FROM links WHERE vault_id = ? AND target_path LIKE '%.md'"
    " GROUP BY target_path),"
    f" own AS (SELECT target_path, COUNT(*) AS n FROM links WHERE src_id IN {_NOT_OWN} GROUP BY target_path)"
    " SELECT e.target_path, e.n - COALESCE(o.n, 0) AS m FROM every e LEFT JOIN own o ON o.target_path = e.target_path"
    " WHERE m > 0 ORDER BY m DESC, e.target_path LIMIT ?"
)


def fold_tag(tag: str) -> str:
    plain = re.sub(r"[-_\s]+", "", tag.lower())
    return plain[:-1] if len(plain) > 3 and plain.endswith("s") and not plain.endswith("ss") else plain


def _plan(goal: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"goal": goal, "steps": [{"id": "fix", "tool": tool, "args": {**args, "dry_run": False}}]}


class Audit:
    name = "audit"
    needs: tuple[Need, ...] = ("index",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        vid = ctx.vault.id
        notes = await ctx.read(
            lambda c: c.execute(
                "SELECT id, path, name, title, aliases, etag FROM notes WHERE vault_id = ?", (vid,)
            ).fetchall()
        )
        can_read = readable(ctx)  # the vault as a reader sees it: a note it may not read is no note
        notes = await ctx.compute(lambda _: [n for n in notes if can_read(str(n[1]))])  # off the loop (`compute`)
        out = await self.broken(ctx, notes)
        await ctx.pause()
        theirs = [n for n in notes if not str(n[1]).startswith(OWN[:-1])]
        out += await self.orphans(ctx, theirs)
        await ctx.pause()
        out += await self.tags(ctx)
        out += await ctx.compute(lambda _: self.aliases(notes))
        await ctx.pause()
        out += await self.mentions(ctx, theirs)
        return out

    async def broken(self, ctx: JobContext, notes: list[Any]) -> list[Finding]:
        seen = {str(n[1]) for n in notes}  # the notes a reader sees: a link to any other note resolves to none
        can_read = readable(ctx)

        def read(c: sqlite3.Connection) -> list[tuple[str, str, str]]:
            vid = ctx.vault.id
            targets = c.execute(
                "SELECT DISTINCT l.target_path, n.id IS NOT NULL FROM links l LEFT JOIN notes n"
                " ON n.vault_id = l.vault_id AND n.path = l.target_path"
                " WHERE l.vault_id = ? AND l.target_path IS NOT NULL",
                (vid,),
            ).fetchall()
            # a file that is no note (an image, a .base, a canvas) is hidden only when the reader may not read it
            hidden = [str(t) for t, is_note in targets if str(t) not in seen and (is_note or not can_read(str(t)))]
            sql = (
                "SELECT l.target_raw, n.path, n.etag FROM links l JOIN notes n ON n.id = l.src_id"
                " WHERE l.vault_id = ? AND l.target_raw != '' AND n.path NOT LIKE ? AND "
            )
            rows = c.execute(sql + "l.target_path IS NULL", (vid, OWN)).fetchall()
            for at in range(0, len(hidden), 500):  # the links to notes a reader may not see: unresolved for it
                chunk = hidden[at : at + 500]
                marks = ",".join("?" * len(chunk))
                rows += c.execute(sql + f"l.target_path IN ({marks})", (vid, OWN, *chunk)).fetchall()
            return [(str(raw), str(path), str(etag)) for raw, path, etag in rows if str(path) in seen]

        rows = await ctx.read(read)
        # difflib over every broken link's names: seconds at 100k notes
        return await ctx.compute(lambda limit: self._broken(ctx, notes, rows, limit))

    def _broken(
        self, ctx: JobContext, notes: list[Any], rows: list[tuple[str, str, str]], limit: Limit
    ) -> list[Finding]:
        sources: dict[str, dict[str, str]] = defaultdict(dict)
        for raw, path, etag in rows:
            sources[raw][path] = etag
        names: dict[str, str] = {}  # label -> the note's path
        for _, path, name, title, aliases, _ in notes:
            for label in (str(name), str(title).lower(), *(a.lower() for a in json.loads(aliases or "[]"))):
                names.setdefault(label, str(path))
        by_start: dict[tuple[str, int], list[str]] = defaultdict(list)  # (first letter, length) -> labels
        for label in names:
            by_start[(label[:1], len(label))].append(label)
        out = []
        for raw, where in sorted(sources.items())[: ctx.settings.max_findings]:
            limit.up()  # a cancelled run ends here
            base = raw.rsplit("/", 1)[-1].removesuffix(".md").lower()
            # a likely target is spelt close: same first letter, about the same length (difflib on those only)
            pool = [lab for d in range(-2, 3) for lab in by_start.get((base[:1], len(base) + d), ())]
            close = difflib.get_close_matches(base, pool, n=1, cutoff=0.8)
            likely_path = names[close[0]] if close else None
            likely = likely_path.removesuffix(".md") if likely_path else None
            out.append(
                Finding(
                    job=self.name,
                    kind="broken_link",
                    key=f"broken_link:{raw}",
                    title=f"[[{raw}]] resolves to no note" + (f" (likely [[{likely}]])" if likely else ""),
                    detail={"target": raw, "likely": likely, "linked_from": sorted(where)},
                    paths=sorted({*where, likely_path} if likely_path else where),  # and the note it would link
                    etags=where,
                    plan=_plan(
                        f"point the links to {raw} at {likely}",
                        "rewrite_links",
                        {"old_target": raw, "new_target": likely},
                    )
                    if likely
                    else None,
                )
            )
        return out

    async def orphans(self, ctx: JobContext, notes: list[Any]) -> list[Finding]:
        seen = {int(n[0]) for n in notes}  # a link from a note a reader may not see does not count

        def linked(c: sqlite3.Connection) -> tuple[set[str], set[str]]:
            """The notes that link nowhere (the candidates) and those of them a note links to (not the
            plane's own, one a reader sees), looked up through the links' indexes per candidate: not
            a set of every link of the vault, which held this reader thread 8 s at 100k notes."""
            vid = ctx.vault.id
            lone = [
                str(r[0])
                for r in c.execute(
                    "SELECT n.path FROM notes n WHERE n.vault_id = ?"
                    " AND NOT EXISTS (SELECT 1 FROM links l WHERE l.src_id = n.id)",
                    (vid,),
                )
            ]
            targets: set[str] = set()
            for at in range(0, len(lone), 500):
                chunk = lone[at : at + 500]
                marks = ",".join("?" * len(chunk))
                rows = c.execute(
                    f"SELECT target_path, src_id FROM links WHERE vault_id = ? AND target_path IN ({marks})"
                    f" AND src_id NOT IN {_NOT_OWN}",
                    (vid, *chunk, vid, OWN),
                )
                targets.update(str(t) for t, src in rows if int(src) in seen)
            return set(lone), targets

        lone, targets = await ctx.read(linked)
        # the memory folder and the template folders (nothing is meant to link a template note)
        aside = (ctx.memory.folder.strip("/") + "/", *(f + "/" for f in template_folders(ctx.vault.paths.root)))
        return await ctx.compute(lambda _: self._orphans(ctx, notes, lone, targets, aside))

    def _orphans(
        self, ctx: JobContext, notes: list[Any], lone: set[str], targets: set[str], aside: tuple[str, ...]
    ) -> list[Finding]:
        out = []
        for _, path, _, title, _, etag in notes:
            if path not in lone or path in targets or str(path).startswith(aside) or not str(path).endswith(".md"):
                continue
            out.append(
                Finding(
                    job=self.name,
                    kind="orphan",
                    key=f"orphan:{path}",
                    title=f"{path} links nowhere and nothing links to it",
                    detail={"path": path, "title": title},
                    paths=[str(path)],
                    etags={str(path): str(etag)},
                )
            )
        return out[: ctx.settings.max_findings]

    async def tags(self, ctx: JobContext) -> list[Finding]:
        rows = await ctx.read(
            lambda c: c.execute(
                f"SELECT tag, COUNT(DISTINCT note_id) FROM note_tags WHERE vault_id = ? AND note_id NOT IN {_NOT_OWN}"
                " GROUP BY tag",
                (ctx.vault.id, ctx.vault.id, OWN),
            ).fetchall()
        )
        groups: dict[str, Counter[str]] = defaultdict(Counter)
        for tag, n in rows:
            top = str(tag).split("/", 1)[0]
            if top == str(tag):
                groups[fold_tag(top)][top] += int(n)
        out = []
        for folded, spellings in sorted(groups.items()):
            if len(spellings) < 2:
                continue
            main = max(spellings.items(), key=lambda kv: (kv[1], kv[0] == kv[0].lower(), kv[0]))[0]
            others = sorted(t for t in spellings if t != main)
            steps = [
                {"id": f"rename{i}", "tool": "rename_tag", "args": {"old": t, "new": main, "dry_run": False}}
                for i, t in enumerate(others)
            ]
            out.append(
                Finding(
                    job=self.name,
                    kind="tag_variant",
                    key=f"tag_variant:{folded}:{','.join(sorted(spellings))}",
                    title=f"#{main} is also written " + ", ".join(f"#{t}" for t in others),
                    detail={"tag": main, "variants": {t: spellings[t] for t in sorted(spellings)}},
                    plan={"goal": f"write every variant of #{main} as #{main}", "steps": steps},
                )
            )
        return out

    def aliases(self, notes: list[Any]) -> list[Finding]:
        holders: dict[str, set[str]] = defaultdict(set)
        for _, path, _, _, aliases, _ in notes:
            for alias in json.loads(aliases or "[]"):
                if isinstance(alias, str) and alias.strip():
                    holders[alias.strip().lower()].add(str(path))
        by_name: dict[str, set[str]] = defaultdict(set)
        for _, path, name, _, _, _ in notes:
            by_name[str(name)].add(str(path))
        out = []
        for alias, paths in sorted(holders.items()):
            everyone = paths | by_name.get(alias, set())
            if len(everyone) > 1:
                out.append(
                    Finding(
                        job=self.name,
                        kind="alias_collision",
                        key=f"alias_collision:{alias}",
                        title=f"{alias!r} names {len(everyone)} notes: a link to it is ambiguous",
                        detail={"alias": alias, "notes": sorted(everyone)},
                        paths=sorted(everyone),
                    )
                )
        return out

    async def mentions(self, ctx: JobContext, notes: list[Any]) -> list[Finding]:
        vid = ctx.vault.id
        by_id = {int(nid): (str(path), str(etag)) for nid, path, _, _, _, etag in notes}
        titles = {str(p): str(t) for _, p, _, t, _, _ in notes}

        def most_linked(c: sqlite3.Connection) -> tuple[list[str], list[str]]:
            rows = c.execute(_MOST_LINKED, (vid, vid, OWN, MOST_LINKED)).fetchall()
            linked = [str(r[0]) for r in rows if str(r[0]) in titles]  # a note a reader may see
            seen = set(linked)  # then the other notes, in turn (notes only, as above: a canvas or an
            # attachment is titled by its basename too, and 'Board' in a sentence is no link to a board)
            others = [p for p in sorted(titles) if p not in seen and p.lower().endswith(".md")]
            at = bisect.bisect_right(others, after)  # after the last one the last run looked for
            return linked, (others[at:] + others[:at])[: MENTION_TITLES - len(linked)]

        def mentioning(target: str, phrase: str) -> Any:
            def read(c: sqlite3.Connection) -> tuple[list[int], dict[int, str]]:
                try:
                    hits = [
                        int(r[0])
                        for r in c.execute(
                            "SELECT rowid FROM fts_words WHERE fts_words MATCH ? LIMIT ?",
                            (f"body:{phrase}", MENTIONS_PER_TITLE * 4),
                        )
                    ]
                except DbOperationalError as exc:
                    if schema_changed(exc):
                        raise  # run again by `Database.run_read`
                    return [], {}  # a title FTS cannot take as a phrase
                linking = {
                    int(r[0])
                    for r in c.execute("SELECT src_id FROM links WHERE vault_id = ? AND target_path = ?", (vid, target))
                }
                named = titles.get(target, "").casefold()
                left = [h for h in hits if h in by_id and h not in linking and by_id[h][0] != target]
                left = [h for h in left if titles.get(by_id[h][0], "").casefold() != named]  # a namesake, not a link
                if not left:
                    return [], {}
                marks = ",".join("?" * len(left))
                return left, dict(c.execute(f"SELECT note_id, body FROM note_text WHERE note_id IN ({marks})", left))

            return read

        def mentioned(target: str, left: list[int], bodies: dict[int, str], limit: Limit) -> list[tuple[str, str]]:
            """Which of `left` name the title in their prose (in a worker thread: `JobContext.compute`)."""
            named = titles.get(target, "").casefold()
            # the index stems and folds accents ("Crossing" matches "Cross"): the very words, case-blind
            # (a word boundary only where the title ends in a letter of a spaced script: 東京 is a
            # word inside "我住在東京了", as the index reads it: `retrieval.unspaced`)
            ends = ("" if unspaced(named[:1]) else r"(?<!\w)", "" if unspaced(named[-1:]) else r"(?!\w)")
            exact = re.compile(ends[0] + r"\s+".join(map(re.escape, named.split())) + ends[1], re.IGNORECASE)
            # in the note's prose: the text of a link (`[[Evergreen notes]]`), an embed or code is no mention
            found = []
            for h in left:
                limit.up()  # a cancelled run ends here; the server's calls go first (`JobContext.give_way`)
                if exact.search(prose(str(bodies.get(h, "")))):
                    found.append(by_id[h])
            return found

        out: list[Finding] = []
        until = time.monotonic() + MENTIONS_BUDGET_S
        after = str(ctx.kept.get("mentions_after") or "")
        linked, in_turn = await ctx.read(most_linked)
        looked: set[str] = set()
        # the mentions of a title not looked for this run stay open (while the note that names it is one)
        ctx.spare["unlinked_mention"] = lambda d: (
            d.get("target") in titles and d.get("target") not in looked and d.get("path") in titles
        )
        turn = set(in_turn)
        for target in linked + in_turn:
            looked.add(target)
            if target in turn:
                ctx.kept["mentions_after"] = target
            title = titles.get(target, "")
            if len(title) < (MIN_UNSPACED if unspaced(title) else MIN_TITLE) or not _LETTER.search(title):
                continue
            phrase = '"' + searched(title).replace('"', " ") + '"'  # as the word index holds it
            left, bodies = await ctx.read(mentioning(target, phrase))
            found = await ctx.compute(partial(mentioned, target, left, bodies)) if left else []
            for path, etag in found[:MENTIONS_PER_TITLE]:
                out.append(
                    Finding(
                        job=self.name,
                        kind="unlinked_mention",
                        key=f"unlinked_mention:{path}:{target}",
                        title=f"{path} mentions {title!r} without linking [[{target.removesuffix('.md')}]]",
                        detail={"path": path, "mentions": title, "target": target},
                        paths=sorted({path, target}),  # about the note it names too
                        etags={path: etag},
                    )
                )
            if len(out) >= ctx.settings.max_findings or time.monotonic() > until:
                break  # the budget of one run: the most linked titles were looked for first
            await ctx.pause()
        return out
