"""Job 7, written summaries (needs the inference gateway): what changed since the last run, in a
few sentences per folder, each sentence citing the notes it draws on.

The notes changed since the last run (the first run: the last day), at most `NOTES_SENT` a folder
and `CHARS_SENT` characters of each, are sent — never a note the vault's path ACL keeps from a
reader, nor one the sensitive rules flag (a secret, a sensitive tag or term: `[sensitive]`,
`[search] sensitive_terms` / `sensitive_tags`). The model is asked for at most four sentences,
each ending with the numbers of its sources (`[1][3]`); a sentence that cites nothing, or a
number that was not sent, is dropped — so every sentence kept cites its sources, written as
wikilinks — and each is quoted as text only (`service.plane.quoting.quoted`, on one line): what
the model wrote gives the kept note no tag, link, embed, field or block. An answer with no such
sentence fails the job (skipped, tried again next run). One finding a run (kind `summary`),
whose plan writes the summaries under `Digests/` (named as the digest's are,
`service.plane.digest.free_note`; notes there are not summarised). A summary not kept yet (open)
is found again as it is, and a later run's takes a note and a key of its own: the changes it
summarised are sent to the model once, and stay in a summary until one is kept.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections import defaultdict
from typing import Any

from service.plane.digest import FOLDER, free_note, iso
from service.plane.findings import Finding, still_open
from service.plane.gateway import GatewayFailed
from service.plane.job import JobContext, Need
from service.plane.quoting import inert, link_to, quoted, unlinked
from service.plane.reader import quotable

NOTES_SENT = 12  # notes of one folder sent at most
CHARS_SENT = 600  # characters of each
FOLDERS_SENT = 8
SYSTEM = (
    "You summarise what changed in a person's notes. Write at most four sentences. End every sentence "
    "with the numbers of the notes it draws on, in square brackets, like [1] or [2][3]. Use only the notes given."
)
_SENTENCE = re.compile(r"(?:<!--|[^.!?])+[.!?]*(?:\s*\[\d+\])*")  # the `!` of `<!--` ends none
_CITE = re.compile(r"\[(\d+)\]")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")  # inline code, as `quoting.quoted` leaves it as written


def cited(answer: str, sent: list[str]) -> list[str]:
    """The sentences of `answer` that cite only notes that were sent, citations as wikilinks, each
    as Obsidian would show it (`shown`: the text before an unpaired `%%` or an unclosed `<!--`, the
    rest hidden), on one line and quoted as text only (`quoting.quoted`, as the digest quotes a
    note's sentence): no `%%` or `<!--` opens a comment in the kept note, and a `#tag`, a
    `[[link]]`, an embed, a `key:: value` or a `^block` the model wrote is no tag, link, field or
    block of the kept summary's, and a line break in it starts no heading or list of its own."""
    kept = []
    for match in _SENTENCE.finditer(unlinked(answer)):  # the `!` of an embed, the `.` of `x.md` end none
        sentence = match.group(0).strip()
        numbers = [int(n) for n in _CITE.findall(sentence)]
        if not numbers or any(not 1 <= n <= len(sent) for n in numbers):
            continue
        text = shown(re.sub(r"\s+([.!?])", r"\1", _CITE.sub("", sentence))).strip()
        links = "".join(f" {link_to(sent[n - 1])}" for n in dict.fromkeys(numbers))  # a path holding %%: no comment
        if text:
            kept.append(quoted(" ".join(text.split())) + links)
    return kept


def shown(sentence: str) -> str:
    """`sentence` as Obsidian shows it in a note: an unpaired `%%` (an odd count outside inline
    code: the last one) hides everything after it, and so does an `<!--` with no `-->` after it
    (in reading view); the text before it stays, so a sentence holding one keeps the fact it
    starts with (and its citations) instead of being dropped. The rest of the answer is not
    hidden: each sentence is kept on its own line and its marks are quoted (`&#37;&#37;`), so a
    pair `%% x %%` or a closed `<!-- x -->` stays as text, as `quoting.quoted` writes it."""
    masked = _CODE_SPAN.sub(lambda code: " " * len(code.group(0)), sentence)  # a mark in code is none
    cut = len(sentence)
    percents = [m.start() for m in re.finditer("%%", masked)]
    if len(percents) % 2:
        cut = percents[-1]
    for opener in re.finditer("<!--", masked):
        if "-->" not in masked[opener.end() :]:
            cut = min(cut, opener.start())
            break
    return sentence[:cut]


class Summaries:
    name = "summaries"
    needs: tuple[Need, ...] = ("index", "llm")

    async def run(self, ctx: JobContext) -> list[Finding]:
        assert ctx.gateway is not None
        since = ctx.since if ctx.since is not None else ctx.now - 86_400
        # summaries not kept yet: found again, never replaced
        still = await still_open(ctx.state, ctx.vault.id, self.name)
        vid = ctx.vault.id

        def read(c: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
            rows = c.execute(
                "SELECT n.path, n.title, n.tags, t.body FROM notes n JOIN note_text t ON t.note_id = n.id"
                " WHERE n.vault_id = ? AND n.mtime > ? ORDER BY n.mtime DESC LIMIT 500",
                (vid, since),
            ).fetchall()
            return [(str(p), str(t), str(g), str(b)) for p, t, g, b in rows]

        rows = await ctx.read(read)
        sendable = quotable(ctx)
        folders: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for path, title, tags, body in rows:
            if not path.startswith(FOLDER + "/") and sendable(path, tags, body):
                folders[path.rsplit("/", 1)[0] if "/" in path else "(vault root)"].append((path, title, body))
        if not folders:
            return still
        budget = ctx.gateway.budget()
        day = dt.datetime.fromtimestamp(ctx.now, dt.UTC).date().isoformat()
        lines = [f"# Summary {day}", ""]
        written = 0
        cites: set[str] = set()
        for folder, notes in sorted(folders.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:FOLDERS_SENT]:
            sent = [p for p, _, _ in notes[:NOTES_SENT]]
            prompt = "\n\n".join(
                f"[{i}] {title} ({path}):\n{body[:CHARS_SENT]}"
                for i, (path, title, body) in enumerate(notes[:NOTES_SENT], 1)
            )
            answer = await ctx.gateway.chat(SYSTEM, f"Notes changed in {folder}:\n\n{prompt}", budget)
            kept = cited(answer, sent)
            cites.update(p for p in sent if link_to(p) in " ".join(kept))
            if kept:
                written += len(kept)
                lines += [f"## {inert(folder)}", "", *kept, ""]
            await ctx.pause()
        if not written:
            raise GatewayFailed("the answers held no sentence citing the notes sent")
        content = "\n".join(lines)
        key, path = free_note(ctx, "summary", taken={str(step["args"]["path"]) for f in still for step in _steps(f)})
        return [
            *still,
            Finding(
                job=self.name,
                kind="summary",
                key=key,
                title=f"written summary of {day}: {written} cited sentences over {len(folders)} folders",
                detail={
                    "since": iso(since),
                    "sentences": written,
                    "folders": sorted(folders)[:FOLDERS_SENT],
                    "text": content,
                },
                paths=sorted(cites),  # about the notes it cites: a caller sees it if it may read them all
                plan={
                    "goal": f"keep the summary of {day}",
                    "steps": [
                        {
                            "id": "summary",
                            "tool": "create_note",
                            "args": {"path": path, "content": content},
                        }
                    ],
                },
            ),
        ]


def _steps(found: Finding) -> list[dict[str, Any]]:
    steps = (found.plan or {}).get("steps")
    return (
        [s for s in steps if isinstance(s, dict) and isinstance(s.get("args"), dict) and "path" in s["args"]]
        if isinstance(steps, list)
        else []
    )
