"""The standard benchmark workload: a deterministic synthetic Obsidian vault and its queries.

Run: `python -m tests.bench.workload OUT [-n 10000 | --size 100k] [--seed 42] [--meta OUT.meta.json] [--force]`
(the benchmarks call `generate` through `tests.bench.common.standard_vault`). The standard workload
is 10,000 notes with seed 42; the same arguments give a byte-identical vault and metadata (for one
Python minor version), and the same vault as the workload generator the project's published
figures were measured on, so figures stay comparable.

The vault: notes in nested folders (Daily/, Projects/, Areas/, Resources/, Archive/, People/,
Inbox/) with log-normal sizes (median ~1.6 KB, ~0.5 % long documents of 50-250 KB), YAML
frontmatter on most notes (tags in block or flow style, status, dates, numbers, aliases, nested
values), inline and nested tags, wikilinks (plain, aliased, to headings, dangling, preferring a few
hub notes), embeds of attachments, headings, tasks, lists, code blocks, callouts, tables and
non-ASCII text, over a Zipf vocabulary (common English, a jargon tier, a pseudo-word tail) so
full-text queries range from very common to rare. Only the standard library is used.

The metadata JSON (written outside the vault) lists every note and 50 queries bucketed by
measured document frequency (`queries[].q`, `.kind`, `.bucket`, `.df`).

Determinism: one `random.Random(seed)` plans and writes the notes, `seed + 1` builds the
vocabulary and `seed + 2` picks the queries. Every draw happens in a fixed order, so a change to
the order of two draws changes the whole vault: keep it when editing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import re
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from tests.bench import workload_words as words

SIX_YEARS = 6 * 365
FIRST_DAY = dt.date(2019, 1, 1)
# A 1x1 transparent PNG: the attachments only need to exist and be binary.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
ZERO_HIT = ["xylophonequark", "zzzyzzva", "notawordatall", "qwertyuiopasdf"]


class Vocabulary:
    """Words drawn with a Zipf mixture: 97 % over real English (common, then jargon, s = 0.95),
    3 % over a pseudo-word tail (s = 0.7)."""

    def __init__(self, rng: random.Random, pseudo_words: int = 6000) -> None:
        self.common = list(dict.fromkeys(w.lower() for w in words.COMMON))
        known = set(self.common)
        self.jargon = [w for w in dict.fromkeys(words.JARGON) if w not in known]
        pseudo: dict[str, None] = {}
        while len(pseudo) < pseudo_words:
            syllables = rng.choice((2, 2, 3, 3, 4))
            word = "".join(rng.choice(words.ONSETS) + rng.choice(words.NUCLEI) for _ in range(syllables))
            word += rng.choice(words.CODAS)
            if word not in known and len(word) >= 5:
                pseudo.setdefault(word, None)
        self.pseudo = list(pseudo)
        self.words = self.common + self.jargon + self.pseudo
        english = [1.0 / (rank + 1) ** 0.95 for rank in range(len(self.common) + len(self.jargon))]
        tail = [1.0 / (rank + 1) ** 0.7 for rank in range(len(self.pseudo))]
        english_total, tail_total = sum(english), sum(tail)
        weights = [0.97 * w / english_total for w in english] + [0.03 * w / tail_total for w in tail]
        self.cumulative = list(accumulate(weights))

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cumulative, k=k)


@dataclass
class PlannedNote:
    """Where a note goes and what it is about, decided for every note before any is written
    (links need every title up front)."""

    title: str
    folder: str
    topic: str
    headings: list[str]
    created: str
    updated: str
    size_target: int
    path: str = ""
    size: int = 0


def _file_title(text: str) -> str:
    return re.sub(r"[\\/:*?\"<>|#^\[\]]", "", text).strip()


def _size_target(rng: random.Random) -> int:
    if rng.random() < 0.005:  # a long document
        return int(rng.uniform(50_000, 250_000))
    return max(120, int(rng.lognormvariate(math.log(700), 1.0)))


def _folder(rng: random.Random, vocab: Vocabulary, topic: str, created: dt.date) -> str:
    r = rng.random()
    if r < 0.30:
        folder = f"Projects/{topic.capitalize()}"
        if rng.random() < 0.5:
            folder += "/" + rng.choice(words.PROJECT_SUBFOLDERS)
        return folder
    if r < 0.50:
        return "Areas/" + "/".join(part.capitalize() for part in rng.choice(words.AREAS).split("/"))
    if r < 0.75:
        return f"Resources/{topic.capitalize()}/{rng.choice(vocab.common[200:225]).capitalize()}"
    if r < 0.85:
        return f"Archive/{created.year}"
    return "People" if r < 0.93 else "Inbox"


def _title(rng: random.Random, vocab: Vocabulary) -> str:
    picked = [w for w in vocab.sample(rng, rng.randint(1, 3)) if len(w) > 2] or [rng.choice(vocab.common[100:600])]
    if rng.random() < 0.03:
        picked.insert(0, rng.choice(words.NON_ASCII).replace("_", " "))
    if rng.random() < 0.35:
        picked.insert(0, rng.choice(vocab.jargon))
    title = " ".join(w.capitalize() if w.isascii() else w for w in picked)
    return _file_title(f"{title} {rng.choice(words.TITLE_NOUNS)}")


def plan_notes(rng: random.Random, n: int, vocab: Vocabulary) -> list[PlannedNote]:
    """Folder, unique title, topic, headings and dates of every note; the first n/6 are daily notes."""
    notes: list[PlannedNote] = []
    taken: set[str] = set()
    for i in range(n):
        topic = words.PROJECTS[i % len(words.PROJECTS)] if rng.random() < 0.7 else rng.choice(words.PROJECTS)
        created = FIRST_DAY + dt.timedelta(days=rng.randrange(0, SIX_YEARS))
        updated = created + dt.timedelta(days=int(rng.expovariate(1 / 60)))
        if i < n // 6:
            day = FIRST_DAY + dt.timedelta(days=i % SIX_YEARS)
            folder = f"Daily/{day.year}/{day.month:02d}"
            title = day.isoformat() if i < SIX_YEARS else f"{day.isoformat()} {rng.choice(words.TITLE_NOUNS)} {i}"
            created = updated = day
        else:
            folder = _folder(rng, vocab, topic, created)
            title = _title(rng, vocab)
        while title in taken or not title:
            title = f"{title} {rng.randint(2, 999)}"
        taken.add(title)
        headings = rng.sample(words.HEADINGS, rng.randint(2, 6))
        notes.append(
            PlannedNote(title, folder, topic, headings, created.isoformat(), updated.isoformat(), _size_target(rng))
        )
    return notes


def frontmatter(rng: random.Random, note: PlannedNote, vocab: Vocabulary) -> str:
    tags = [note.topic]
    if rng.random() < 0.6:
        tags.append(f"proj/{note.topic}")
    if rng.random() < 0.4:
        tags.append(rng.choice(words.AREAS))
    if rng.random() < 0.3:
        tags.append(rng.choice(vocab.common[150:500]))
    tags = list(dict.fromkeys(tags))
    lines = ["---"]
    if rng.random() < 0.5:
        lines += ["tags:", *(f"  - {t}" for t in tags)]
    else:
        lines.append("tags: [" + ", ".join(tags) + "]")
    lines += [f"status: {rng.choice(words.STATUSES)}", f"created: {note.created}", f"updated: {note.updated}"]
    if rng.random() < 0.7:
        lines.append(f"priority: {rng.randint(1, 5)}")
    if rng.random() < 0.4:
        lines.append(f"rating: {round(rng.uniform(0, 10), 1)}")
    if rng.random() < 0.3:
        lines.append(f"effort_hours: {rng.randint(0, 400)}")
    if rng.random() < 0.35:
        aliases = [note.title.lower()]
        if rng.random() < 0.5:
            aliases.append(" ".join(vocab.sample(rng, 2)))
        lines += ["aliases:", *(f'  - "{a}"' for a in aliases)]
    if rng.random() < 0.2:
        lines.append(f"author: {rng.choice(words.AUTHORS)}")
    if rng.random() < 0.15:
        url = f"https://example.org/{rng.choice(vocab.common)}/{rng.randint(1, 9999)}"
        lines += ["source:", f"  url: {url}", f"  accessed: {note.updated}"]
    if rng.random() < 0.1:
        lines.append(f"published: {rng.choice(['true', 'false'])}")
    lines.append("---")
    return "\n".join(lines) + "\n"


class NoteWriter:
    """Renders planned notes to Markdown, drawing from the one generator in a fixed order."""

    def __init__(self, rng: random.Random, vocab: Vocabulary, notes: list[PlannedNote], attachments: list[str]) -> None:
        self.rng = rng
        self.vocab = vocab
        self.notes = notes
        self.attachments = attachments
        # Preferential attachment: a few hub notes are linked far more often than the rest.
        self.link_weights = list(accumulate(1.0 / (k + 1) ** 0.8 for k in range(len(notes))))
        self.link_order = list(range(len(notes)))
        rng.shuffle(self.link_order)
        self.topic_words = {topic: text.split() for topic, text in words.TOPICS.items()}

    def _linked_note(self) -> PlannedNote:
        return self.notes[self.rng.choices(self.link_order, cum_weights=self.link_weights, k=1)[0]]

    def wikilink(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.05:  # to a note nobody wrote
            return f"[[{' '.join(w.capitalize() for w in self.vocab.sample(rng, 2))} Unwritten]]"
        target = self._linked_note()
        title = target.title
        if r < 0.55:
            return f"[[{title}]]"
        if r < 0.72:
            return f"[[{title}|{' '.join(self.vocab.sample(rng, rng.randint(1, 3)))}]]"
        heading = rng.choice(target.headings)
        if r < 0.88:
            return f"[[{title}#{heading}]]"
        return f"[[{title}#{heading}|{heading.lower()} of {title.split()[0].lower()}]]"

    def tag(self, topic: str) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            return f"#{topic}"
        if r < 0.6:
            return f"#proj/{topic}"
        if r < 0.75:
            return f"#{rng.choice(words.AREAS)}"
        if r < 0.85:
            return f"#{rng.choice(words.WORKFLOW_TAGS)}"
        return f"#{rng.choice(self.vocab.common[100:500])}"

    def sentence(self, topic: str) -> str:
        rng = self.rng
        n = rng.randint(6, 20)
        out = self.vocab.sample(rng, n)
        # In `out[i] = value` Python evaluates `value` before `i`: the draws keep that order.
        for _ in range(rng.randint(0, 2)):
            out[rng.randrange(n)] = rng.choice(self.topic_words[topic])
        if rng.random() < 0.15:
            out[rng.randrange(n)] = rng.choice(self.vocab.jargon)
        if rng.random() < 0.03:
            out[rng.randrange(n)] = rng.choice(words.NON_ASCII).replace("_", " ")
        for chance, mark in ((0.08, "**"), (0.06, "*"), (0.05, "`")):
            if rng.random() < chance:
                j = rng.randrange(n)
                out[j] = f"{mark}{out[j]}{mark}"
        if rng.random() < 0.18:
            out.insert(rng.randrange(n), self.wikilink())
        if rng.random() < 0.07:
            out.insert(rng.randrange(n), self.tag(topic))
        text = " ".join(out)
        text = text[0].upper() + text[1:]
        end = rng.choices([".", ".", ".", "?", "!", ":"], k=1)[0]
        if rng.random() < 0.02:
            text += " " + rng.choice(words.EMOJI)
        return text + end

    def paragraph(self, topic: str) -> str:
        return " ".join(self.sentence(topic) for _ in range(self.rng.randint(2, 6)))

    def _tasks(self, topic: str) -> str:
        rng = self.rng
        items = []
        for _ in range(rng.randint(2, 7)):
            box = "x" if rng.random() < 0.4 else " "
            due = f" 📅 {self.notes[0].created}" if rng.random() < 0.05 else ""
            text = self.sentence(topic).rstrip(".!?:")
            if rng.random() < 0.2:
                text += " " + self.tag(topic)
            items.append(f"- [{box}] {text}{due}")
        return "\n".join(items)

    def _list(self, topic: str) -> str:
        rng = self.rng
        items: list[str] = []
        for _ in range(rng.randint(2, 6)):
            indent = "  " if items and rng.random() < 0.25 else ""
            bullet = rng.choice(["-", "*", "1."])
            items.append(f"{indent}{bullet} {self.sentence(topic)}")
        return "\n".join(items)

    def _code(self) -> str:
        rng = self.rng
        lang = rng.choice(words.LANGS)
        body = []
        for _ in range(rng.randint(2, 12)):
            ws = self.vocab.sample(rng, rng.randint(2, 6))
            if lang == "python":  # tags and links inside code are not tags or links
                args = ", ".join(repr(w) for w in ws[1:-1])
                body.append(f"{ws[0]}_{ws[-1]} = compute({args})  # #not-a-tag [[not a link]]")
            elif lang == "sql":
                body.append(f"SELECT {ws[0]} FROM {ws[-1]} WHERE id = {rng.randint(1, 999)};")
            else:
                body.append(" ".join(ws))
        return f"```{lang}\n" + "\n".join(body) + "\n```"

    def _callout(self, topic: str) -> str:
        kind = self.rng.choice(words.CALLOUTS)
        head = f"> [!{kind}] {self.rng.choice(words.HEADINGS)}\n> "
        return head + self.sentence(topic) + "\n> " + self.sentence(topic)

    def _table(self) -> str:
        rng = self.rng
        cols = rng.randint(2, 4)
        rows = ["| " + " | ".join(w.capitalize() for w in self.vocab.sample(rng, cols)) + " |", "|" + "---|" * cols]
        for _ in range(rng.randint(2, 6)):
            cells = (
                str(rng.randint(0, 999)) if rng.random() < 0.4 else rng.choice(self.vocab.common) for _ in range(cols)
            )
            rows.append("| " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def _embed(self, topic: str) -> str:
        name = self.rng.choice(self.attachments)
        if self.rng.random() < 0.7:
            return f"![[{name}]]"
        return f"![{self.sentence(topic)[:30]}](attachments/{name.replace(' ', '%20')})"

    def block(self, topic: str) -> str:
        r = self.rng.random()
        if r < 0.55:
            return self.paragraph(topic)
        if r < 0.68:
            return self._tasks(topic)
        if r < 0.78:
            return self._list(topic)
        if r < 0.85:
            return self._code()
        if r < 0.91:
            return self._callout(topic)
        if r < 0.95:
            return self._table()
        if r < 0.98 and self.attachments:
            return self._embed(topic)
        return "> " + self.sentence(topic) + " — " + self.rng.choice(words.QUOTED)

    def render(self, note: PlannedNote) -> str:
        rng = self.rng
        daily = note.folder.startswith("Daily")
        out: list[str] = []
        if not daily and rng.random() < 0.85:
            out.append(frontmatter(rng, note, self.vocab))
        elif daily and rng.random() < 0.5:
            out.append(f"---\ntags: [daily]\ncreated: {note.created}\nmood: {rng.randint(1, 5)}\n---\n")
        if rng.random() < 0.7:
            out.append(f"# {note.title}\n")
        if rng.random() < 0.5:
            out.append(" ".join(self.tag(note.topic) for _ in range(rng.randint(1, 3))) + "\n")
        size = sum(len(part) for part in out)
        heads, target, next_head = note.headings, note.size_target, 0
        while size < target:  # the body spread over the note's headings
            if next_head < len(heads) and (size > target * next_head / max(1, len(heads)) or next_head == 0):
                heading = f"{'##' if rng.random() < 0.8 else '###'} {heads[next_head]}"
                out.append(heading)
                size += len(heading) + 2
                next_head += 1
            block = self.block(note.topic)
            out.append(block)
            size += len(block) + 2
        for heading in heads[next_head:]:  # every heading exists: links point at them
            out += [f"## {heading}", self.paragraph(note.topic)]
        if rng.random() < 0.3:
            out.append("---\nRelated: " + ", ".join(self.wikilink() for _ in range(rng.randint(1, 5))))
        return "\n\n".join(part.rstrip("\n") for part in out) + "\n"


def queries(rng: random.Random, bodies: list[str], vocab: Vocabulary) -> list[dict[str, Any]]:
    """50 queries bucketed by measured document frequency (lower-cased `[a-z0-9]+` tokens)."""
    df: Counter[str] = Counter()
    for text in bodies:
        df.update(set(re.findall(r"[a-z0-9]+", text)))
    n = len(bodies)
    stop = set(vocab.common[:150])  # function words, which many engines drop
    candidates = [w for w in vocab.words if w.isalpha() and len(w) >= 4 and w in df and w not in stop]

    def share(lo: float, hi: float) -> list[str]:
        return [w for w in candidates if lo <= df[w] / n < hi]

    pseudo = set(vocab.pseudo)
    out: list[dict[str, Any]] = []
    buckets = [
        ("very_common >=30%", share(0.30, 1.01)),
        ("common 5-30%", share(0.05, 0.30)),
        ("mid 0.5-5%", share(0.005, 0.05)),
        ("rare <0.5%", share(0.0, 0.005)),
    ]
    for bucket, found in buckets:  # 8 each, half of them pseudo-words where the bucket has some
        real = sorted(w for w in found if w not in pseudo)
        fake = sorted(w for w in found if w in pseudo)
        n_real = min(len(real), 4 if fake else 8)
        for w in rng.sample(real, n_real) + rng.sample(fake, min(len(fake), 8 - n_real)):
            out.append({"q": w, "kind": "single", "bucket": bucket, "df": df[w], "pseudo": w in pseudo})
    mids, commons = sorted(share(0.005, 0.05)), sorted(share(0.05, 0.30))
    for _ in range(6):  # two-word AND queries: one common and one mid-frequency word
        a, b = rng.choice(commons), rng.choice(mids)
        both = sum(1 for t in bodies if re.search(rf"\b{a}\b", t) and re.search(rf"\b{b}\b", t))
        out.append({"q": f"{a} {b}", "kind": "and2", "bucket": "two-term", "df": both})
    for w in rng.sample(sorted(vocab.jargon[:120]), 6):
        out.append({"q": w, "kind": "single", "bucket": "jargon", "df": df.get(w, 0)})
    for w in ["zürich", "café"]:
        out.append({"q": w, "kind": "single", "bucket": "non-ascii", "df": sum(1 for t in bodies if w in t)})
    out += [{"q": w, "kind": "single", "bucket": "zero-hit", "df": 0} for w in ZERO_HIT]
    return out[:50]


SIZES = {"10k": 10_000, "100k": 100_000}
"""Named workload sizes: the standard one and the scale one (issue 39), same parameters and seed."""


def generate(out: Path, n: int = 10_000, seed: int = 42, meta: Path | None = None) -> dict[str, Any]:
    """Write the vault to `out` (which must not exist) and its metadata to `meta` (default
    `OUT.meta.json`); returns the metadata."""
    rng = random.Random(seed)
    vocab = Vocabulary(random.Random(seed + 1))
    notes = plan_notes(rng, n, vocab)
    (out / ".obsidian").mkdir(parents=True)
    settings = {"alwaysUpdateLinks": True, "newFileLocation": "folder", "attachmentFolderPath": "attachments"}
    (out / ".obsidian" / "app.json").write_text(json.dumps(settings))
    attachments = [f"diagram-{k:03d}.png" for k in range(max(5, n // 500))]
    (out / "attachments").mkdir()
    for name in attachments:
        (out / "attachments" / name).write_bytes(TINY_PNG)
    writer = NoteWriter(rng, vocab, notes, attachments)
    bodies: list[str] = []
    for note in notes:
        (out / note.folder).mkdir(parents=True, exist_ok=True)
        note.path = f"{note.folder}/{note.title}.md"
        text = writer.render(note)
        data = text.encode("utf-8")
        note.size = len(data)
        file = out / note.path
        file.write_bytes(data)
        stamp = dt.datetime.fromisoformat(f"{note.updated}T12:00:00").timestamp()  # local noon
        os.utime(file, (stamp, stamp))
        bodies.append(text.lower())
    sizes = sorted(note.size for note in notes)
    result: dict[str, Any] = {
        "n": n,
        "seed": seed,
        "total_bytes": sum(sizes),
        "size_p50": sizes[len(sizes) // 2],
        "size_p95": sizes[int(len(sizes) * 0.95)],
        "size_max": sizes[-1],
        "n_over_50k": sum(1 for s in sizes if s >= 50_000),
        "queries": queries(random.Random(seed + 2), bodies, vocab),
        "notes": [{"path": x.path, "title": x.title, "bytes": x.size, "headings": x.headings} for x in notes],
    }
    target = meta or Path(str(out).rstrip("/") + ".meta.json")
    with target.open("w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, indent=1)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the vault folder to create")
    parser.add_argument("-n", type=int, default=10_000, help="number of notes (default 10000)")
    parser.add_argument("--size", choices=sorted(SIZES), help="a named size (overrides -n): 10k or 100k")
    parser.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    parser.add_argument("--meta", type=Path, help="where to write the metadata JSON (default OUT.meta.json)")
    parser.add_argument("--force", action="store_true", help="delete OUT first if it exists")
    args = parser.parse_args(argv)
    if args.size:
        args.n = SIZES[args.size]
    out = args.out.resolve()
    if out.exists():
        if not args.force:
            sys.exit(f"{out} exists (use --force)")
        shutil.rmtree(out)
    result = generate(out, args.n, args.seed, args.meta)
    print(json.dumps({k: v for k, v in result.items() if k not in ("notes", "queries")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
