"""Job 6, the digest: what changed since the last run, without an LLM — the notes created and
changed per folder with their first sentence (as text only: `quoted`), the open tasks among
them, and the memory entities updated. One finding a run (kind `digest`), whose plan writes it
as a note under `Digests/` (`create_note`); the first run of a vault looks back one day, and a run while a digest is not
kept yet (open) back to where that one started (`open_since`), which it then replaces — so to
where the last digest kept ended, but never more than `WINDOW_DAYS` back. It counts every note
changed in that window (and their open tasks), listing the newest `NOTES_LISTED` of a folder by
name and the others as "… and N more"; `LISTED_IN_ALL` notes at most, taken over the folders in
turn, so a folder whose changes are older than the rest's is named too (`to_list`), and one left
without a name past that bound says so. The day's first digest kept is
`Digests/<day> digest.md`; once that note exists, a later run's digest is
`Digests/<day> digest <HH-MM>.md` (the run's UTC time; `-2`, `-3`… after it when taken too), a
finding of its own (key `digest:<day> <HH-MM>`), so each run's digest can be kept. Notes under
`Digests/` (the plane's own output) are not counted as changes, nor is a note the vault's path ACL
keeps from a reader (`service.plane.reader`), nor its tasks; a note the sensitive rules flag is
counted with its tasks (a reader may read it, and search finds it) but a digest never lists,
links or quotes it (nor names a memory entity a reader may not see).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable

from service.obsidian.task_status import open_sql, tasks_sql, vault_statuses
from service.plane.findings import Finding, still_open
from service.plane.job import JobContext, Need
from service.plane.quoting import inert, link_to, quoted, unlinked
from service.plane.reader import quotable, readable
from service.storage.db import DbOperationalError

NOTES_LISTED = 50  # a folder's notes listed by name (the newest); the rest counted
LISTED_IN_ALL = 400  # the notes a digest lists at most, over its folders in turn (the newest of each first)
WINDOW_DAYS = 7  # the longest a digest looks back
FOLDER = "Digests"  # where digests and written summaries are kept
_SENTENCE = re.compile(r"[^.!?\n]{12,}[.!?]?")


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else "(vault root)"


_COMMENT = re.compile(r"%%.*?%%|<!--.*?-->", re.S)  # Obsidian's comments, closed


def _shown(body: str) -> str:
    """The note's text as Obsidian shows it: its comments (`%% … %%`, `<!-- … -->`) removed, and
    what follows one left open (it runs to the note's end), so a digest never quotes hidden text
    nor opens a comment of its own that would hide its next lines."""
    text = _COMMENT.sub(" ", body)
    for mark in ("%%", "<!--"):
        text = text.split(mark, 1)[0]
    return text


def _first_sentence(body: str) -> str:
    """The first sentence of the note's text, quoted as text only (`quoted`)."""
    for line in _shown(body).splitlines():
        text = line.strip().lstrip("#>-*0123456789. ").strip()
        if text and not text.startswith(("---", "```", "|", "![")):
            found = _SENTENCE.search(unlinked(text))  # '[x](a.md)' ends none
            if found:
                return quoted(found.group(0).strip()[:200])
    return ""


class Digest:
    name = "digest"
    needs: tuple[Need, ...] = ("index",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        since = ctx.since if ctx.since is not None else ctx.now - 86_400
        since = min(since, await open_since(ctx, self.name))  # a digest not kept yet: this one covers it
        since = max(since, ctx.now - WINDOW_DAYS * 86_400)  # none kept for long: the last days, not all of them
        vid = ctx.vault.id
        open_clause, closed = open_sql(vault_statuses(ctx.vault.paths.root), "k.status")  # as list_tasks reads it
        are_tasks, only = tasks_sql(ctx.vault, "k.text")  # the global filter's items, when it has one
        memory = ctx.memory.folder.strip("/") + "/"
        own = " AND substr(n.path, 1, ?) != ? AND substr(n.path, 1, ?) != ?"  # not the memory, not the digests
        apart = (len(memory), memory, len(FOLDER) + 1, FOLDER + "/")

        def read(c: sqlite3.Connection) -> tuple[list[tuple[str, float]], dict[str, int]]:
            changed = c.execute(
                f"SELECT n.path, n.mtime FROM notes n WHERE n.vault_id = ? AND n.mtime > ?{own}", (vid, since, *apart)
            ).fetchall()
            tasks = c.execute(
                "SELECT n.path, COUNT(*) FROM tasks k JOIN notes n ON n.id = k.note_id WHERE n.vault_id = ?"
                f" AND n.mtime > ? AND {open_clause} AND {are_tasks} GROUP BY n.path",
                (vid, since, *closed, *only),
            ).fetchall()
            return [(str(p), float(m)) for p, m in changed], {str(p): int(n) for p, n in tasks}

        def texts(paths: list[str]) -> Callable[[sqlite3.Connection], list[tuple[str, str, float, str, str]]]:
            def read(c: sqlite3.Connection) -> list[tuple[str, str, float, str, str]]:
                rows = []
                for at in range(0, len(paths), 500):  # the notes to list, with their first sentence
                    chunk = paths[at : at + 500]
                    rows += c.execute(
                        "SELECT n.path, n.title, n.ctime, t.body, n.tags FROM notes n JOIN note_text t"
                        f" ON t.note_id = n.id WHERE n.vault_id = ? AND n.path IN ({','.join('?' * len(chunk))})",
                        (vid, *chunk),
                    ).fetchall()
                return [(str(a), str(b), float(ct), str(body), str(g)) for a, b, ct, body, g in rows]

            return read

        try:
            changed, tasks_in = await ctx.read(read)
        except DbOperationalError:  # an index without the tasks table's shape: no task count
            changed, tasks_in = [], {}
        shown, can_read = quotable(ctx), readable(ctx)  # never a note a reader may not see, nor a flagged one
        entities = sorted(
            e.entity.name
            for e in ctx.recall.notes.values()
            if (e.entity.updated or "") >= iso(since) and can_read(e.rel)
        )
        changed = [(p, m) for p, m in changed if can_read(p)]
        chosen = to_list(changed)
        tried = {_folder(p) for p in chosen}  # the folders with a note chosen to list (flagged ones are not listed)
        rows = await ctx.read(texts(sorted(chosen)))
        order = {p: i for i, p in enumerate(chosen)}
        rows.sort(key=lambda r: order.get(r[0], len(order)))
        counted = [p for p, _ in changed]  # every one a reader may see, listed or not
        notes = [r[:4] for r in rows if shown(r[0], r[4], r[3])]
        open_tasks = sum(tasks_in.get(p, 0) for p in counted)
        if not counted and not entities:
            return []
        day = dt.datetime.fromtimestamp(ctx.now, dt.UTC).date().isoformat()
        by_folder: dict[str, int] = defaultdict(int)
        for path in counted:
            by_folder[_folder(path)] += 1
        listed: dict[str, list[tuple[str, str, float, str]]] = defaultdict(list)
        for row in notes:
            listed[_folder(row[0])].append(row)
        lines = [
            f"# Digest {day}",
            "",
            f"Since {iso(since)}: {len(counted)} notes changed, {open_tasks} open tasks in them.",
        ]
        for folder, count in sorted(by_folder.items(), key=lambda kv: (-kv[1], kv[0])):
            lines += ["", f"## {inert(folder)} ({count})", ""]
            items = listed[folder][:NOTES_LISTED]
            for path, title, ctime, body in items:
                new = " (new)" if ctime > since else ""
                sentence = _first_sentence(body)
                lines.append(f"- {link_to(path, title)}{new}" + (f": {sentence}" if sentence else ""))
            if not items and folder not in tried:
                lines.append(f"- {count} notes, none listed (a digest lists {LISTED_IN_ALL} notes at most)")
            elif count > len(items):
                lines.append(f"- … and {count - len(items)} more")
        if entities:
            lines += [
                "",
                f"## Memory ({len(entities)} entities updated)",
                "",
                *(f"- {inert(name)}" for name in entities[:NOTES_LISTED]),
                *([f"- … and {len(entities) - NOTES_LISTED} more"] if len(entities) > NOTES_LISTED else []),
            ]
        content = "\n".join(lines) + "\n"
        key, path = free_note(ctx, "digest")
        return [
            Finding(
                job=self.name,
                kind="digest",
                key=key,
                title=f"digest of {day}: {len(counted)} notes changed, {len(entities)} entities updated",
                detail={
                    "since": iso(since),
                    "notes": len(counted),
                    "folders": len(by_folder),
                    "open_tasks": open_tasks,
                    "entities": entities[:NOTES_LISTED],
                    "text": content,
                },
                plan={
                    "goal": f"keep the digest of {day}",
                    "steps": [
                        {
                            "id": "digest",
                            "tool": "create_note",
                            "args": {"path": path, "content": content},
                        }
                    ],
                },
            )
        ]


def to_list(changed: list[tuple[str, float]]) -> list[str]:
    """The notes a digest lists, from those changed (path, mtime): the newest `NOTES_LISTED` of
    each folder, taken over the folders in turn (each folder's newest, then each one's second…)
    up to `LISTED_IN_ALL`, so a folder whose notes are older than the vault's newest changes is
    named too. In that order."""
    folders: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for path, mtime in changed:
        folders[_folder(path)].append((-mtime, path))
    queues = [[p for _, p in sorted(notes)[:NOTES_LISTED]] for _, notes in sorted(folders.items())]
    out: list[str] = []
    for rank in range(NOTES_LISTED):
        for queue in queues:
            if rank < len(queue) and len(out) < LISTED_IN_ALL:
                out.append(queue[rank])
    return out


async def open_since(ctx: JobContext, job: str) -> float:
    """Where the window of `job`'s open findings starts (`inf`: none open). A run's digest takes
    the day's key while the day's note is not kept, so a later run's would replace a digest no one
    kept yet with the changes since that run only, and one finding nothing new would mark it
    `gone`: the changes it listed were in no digest. A digest not kept (open) is covered again."""
    starts = [math.inf]
    for found in await still_open(ctx.state, ctx.vault.id, job):
        try:
            since = found.detail.get("since")
            starts.append(dt.datetime.fromisoformat(str(since).replace("Z", "+00:00")).timestamp())
        except (ValueError, TypeError):  # a detail of another shape: no window
            continue
    return min(starts)


def free_note(ctx: JobContext, label: str, taken: set[str] | frozenset[str] = frozenset()) -> tuple[str, str]:
    """The key and the note of a run's `label` (digest, summary): the day's note
    `Digests/<day> <label>.md` while it does not exist, else one named by the run's time; a
    note in `taken` (an open finding's) counts as existing."""
    moment = dt.datetime.fromtimestamp(ctx.now, dt.UTC)
    day = moment.date().isoformat()
    first = f"{FOLDER}/{day} {label}.md"
    if not _exists(ctx, first) and first not in taken:
        return f"{label}:{day}", first
    stamp = moment.strftime("%H-%M")
    for n in range(1, 100):
        suffix = stamp if n == 1 else f"{stamp}-{n}"
        path = f"{FOLDER}/{day} {label} {suffix}.md"
        if not _exists(ctx, path) and path not in taken:
            return f"{label}:{day} {suffix}", path
    return f"{label}:{day} {stamp}", f"{FOLDER}/{day} {label} {stamp}.md"  # pragma: no cover - 99 taken


def _exists(ctx: JobContext, rel: str) -> bool:
    return ctx.vault.files.has_note(ctx.vault.paths.resolve(rel, allow_hidden=True))


def iso(seconds: float) -> str:
    """A time as the findings' details write it ('2026-12-02T08:00:00Z')."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
