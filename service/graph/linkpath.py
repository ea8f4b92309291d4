"""Link targets against a set of vault paths: resolve them, and write new link text in a style.

`PathSet` answers "which file does this link text name, seen from this note" for a
hypothetical set of files — the vault before a move and the vault after it — which the index
cannot do because it only knows the present. The rules are Obsidian's: an exact vault path
(`.md` optional, case-insensitive), a path relative to the linking note, else a file-name
match, unique or the closest candidate (same folder first, then the shortest path:
`service.obsidian.link_order`).

`link_text` is the inverse: the text to write so a link from `source` names `target`, keeping
the style the user wrote (bare name when still unique, vault path, relative path, `.md` or not).

Guarantees: pure functions over strings; `link_text` never returns text that `resolve` would
send somewhere other than `target` for the same `PathSet`.
"""

from __future__ import annotations

import bisect
import posixpath
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from service.obsidian.link_order import closeness

Style = Literal["name", "path", "relative"]


def strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def nfc(text: str) -> str:
    """`text` in NFC, as vault paths are: a link a macOS client wrote in NFD ('Cafe\u0301')
    names the same file ('Café.md'), as a path argument does (`parse_address`)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def base_name(path: str) -> str:
    """The file name of `path` in NFC: the key a link's name is looked up by (`PathSet.by_name`,
    the index's unresolved links) is the same however the link spells it."""
    return nfc(path.rsplit("/", 1)[-1])


def folder_of(path: str) -> str:
    return path.rpartition("/")[0]


def relative_to_folder(folder: str, target: str) -> str:
    """`target` written relative to `folder` (both vault paths)."""
    rel = posixpath.relpath(target, folder or ".")
    return rel


@dataclass(frozen=True, slots=True)
class LinkForm:
    """How a link target was written, so a rewritten one can keep the same form."""

    style: Style
    with_ext: bool  # '.md' written explicitly (always true for non-note files)
    dot_slash: bool  # relative text started with './'


def form_of(raw: str, target: str) -> LinkForm:
    is_note = target.lower().endswith(".md")
    with_ext = not is_note or raw.lower().endswith(".md")
    if raw.startswith(("./", "../")):
        return LinkForm("relative", with_ext, raw.startswith("./"))
    return LinkForm("path" if "/" in raw else "name", with_ext, False)


_MISSING: Any = object()
_GONE: Any = object()  # an overlay entry hiding a key of the base
FLATTEN = 4096  # overlay entries from which `PathSet.changed` makes one flat layer again
V = TypeVar("V")


class _Layered(Generic[V]):
    """A read-only mapping: a base dict shared between versions, under a small dict of changes.
    `PathSet.changed` copied both of its dicts whole (~2 ms and as much freed at 100k files,
    once per note created or removed, in its save → searchable time); now it copies the changes
    made since the last flat layer, and every `FLATTEN` of them once the whole."""

    __slots__ = ("base", "over")

    def __init__(self, base: dict[str, V], over: dict[str, Any] | None = None) -> None:
        self.base = base
        self.over: dict[str, Any] = {} if over is None else over

    def get(self, key: str, default: Any = None) -> Any:
        found = self.over.get(key, _MISSING)
        if found is _MISSING:
            return self.base.get(key, default)
        return default if found is _GONE else found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, _MISSING) is not _MISSING

    def items(self) -> Iterator[tuple[str, V]]:
        over = self.over
        yield from ((k, v) for k, v in self.base.items() if k not in over)
        yield from ((k, v) for k, v in over.items() if v is not _GONE)

    def values(self) -> Iterator[V]:
        return (v for _, v in self.items())

    def keys(self) -> Iterator[str]:
        return (k for k, _ in self.items())

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def __getitem__(self, key: str) -> V:
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Layered):
            other = dict(other.items())
        return isinstance(other, dict) and dict(self.items()) == other

    __hash__ = None  # type: ignore[assignment]

    def child(self) -> _Layered[V]:
        """The next version: the same base, a copy of the changes (flattened when many)."""
        if len(self.over) >= FLATTEN:
            return _Layered(dict(self.items()))
        return _Layered(self.base, dict(self.over))

    def set(self, key: str, value: V) -> None:
        self.over[key] = value

    def delete(self, key: str) -> None:
        if key in self.base:
            self.over[key] = _GONE
        else:
            self.over.pop(key, None)


Bucket = str | tuple[str, ...]  # the paths of one name: one path, or several sorted


def _listed(bucket: Bucket | None) -> tuple[str, ...]:
    if bucket is None:
        return ()
    return (bucket,) if type(bucket) is str else bucket  # type: ignore[return-value]


class PathSet:
    """An immutable set of vault file paths with Obsidian link resolution over it.

    One table: each file's lower-case name to its paths (a bare `str` for a name one file has,
    most of them; a sorted tuple for several). An exact path is found in its name's bucket: the
    first (smallest) path there in the same letter case-insensitively is the one a table of
    lower-case paths held before, and that table (a lowered copy of every path and its dict),
    with the one-element lists that were most names' buckets, are not held: 31.3 → 10.7 MB at
    100k files (tracemalloc, the 100k bench vault's paths), for a dict lookup and a lowered
    path compared per exact path asked for: `exact` ~0.25 µs slower a call, resolving a sample
    of the vault's links not slower (in process, alternated with the old tables)."""

    def __init__(self, paths: Iterable[str], *, ordered: bool = False) -> None:
        """`paths`: sorted and each once already when `ordered` (not sorted again)."""
        by_name: dict[str, Bucket] = {}
        several: dict[str, list[str]] = {}
        for path in paths if ordered else sorted(set(paths)):
            name = base_name(path).lower()
            held = by_name.setdefault(name, path)
            if held is not path:
                group = several.get(name)
                if group is None:
                    several[name] = [held, path]  # type: ignore[list-item]
                else:
                    group.append(path)
        for name, group in several.items():
            by_name[name] = tuple(group)
        self._by_name: _Layered[Bucket] = _Layered(by_name)

    def changed(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> PathSet:
        """This set with `added` and without `removed`, as a new PathSet (this one is unchanged:
        a link resolution running in a worker thread may hold it). Costs the changed names, not
        a rebuild of every path (~20 ms at 10k files, once per new note before)."""
        new = PathSet.__new__(PathSet)
        by_name = self._by_name.child()  # buckets are replaced, never mutated
        for path in removed:
            name = base_name(path).lower()
            kept = [p for p in _listed(by_name.get(name)) if p != path]
            if kept:
                by_name.set(name, kept[0] if len(kept) == 1 else tuple(kept))
            else:
                by_name.delete(name)
        for path in added:
            name = base_name(path).lower()
            current = _listed(by_name.get(name))
            if path in current:
                continue
            grown = list(current)
            bisect.insort(grown, path)
            by_name.set(name, grown[0] if len(grown) == 1 else tuple(grown))
        new._by_name = by_name
        return new

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._first(path.lower()) is not None

    def paths(self) -> list[str]:
        """One path per lower-case path (the smallest), as the set's members are counted."""
        seen: set[str] = set()
        out: list[str] = []
        for bucket in self._by_name.values():
            for path in _listed(bucket):
                key = path.lower()
                if key not in seen:
                    seen.add(key)
                    out.append(path)
        return out

    def exact(self, raw: str) -> str | None:
        """The file `raw` names as a vault path (no name or suffix matching)."""
        return self._exact(nfc(raw).strip().lstrip("/"))

    def _exact(self, candidate: str) -> str | None:
        key = posixpath.normpath(candidate).lower() if candidate else ""
        if key.startswith("../") or key in ("", ".", ".."):
            return None
        return self._first(key) or self._first(key + ".md")

    def _first(self, key: str) -> str | None:
        """The smallest path whose lower case is `key` (a lower-case path)."""
        bucket: Bucket | None = self._by_name.get(base_name(key))
        if bucket is None:
            return None
        if type(bucket) is str:
            return bucket if bucket.lower() == key else None
        for path in bucket:
            if path.lower() == key:
                return path
        return None

    def by_name(self, name: str) -> list[str]:
        """Files whose name is `name` (with or without '.md'), case-insensitive, in any Unicode form."""
        key = nfc(name).lower()
        get = self._by_name.get
        return [*_listed(get(key)), *_listed(get(key + ".md"))]

    def resolve(self, raw: str, source: str) -> str | None:
        """The file `raw` (a link target as written, decoded, in any Unicode form) names from note `source`."""
        raw = nfc(raw).strip()
        if not raw:
            return source if source in self else None
        if raw.startswith("/"):
            return self._exact(raw.lstrip("/"))
        if "/" not in raw:
            # A bare name: every file the rules below could pick has this name, so a name that
            # only one file has is that file (most links; no path normalisation needed).
            hits = self.by_name(raw)
            if len(hits) == 1:
                return hits[0]
            if not hits:
                return None
        here = folder_of(source)
        if raw.startswith(("./", "../")):
            return self._exact(posixpath.join(here, raw))
        found = self._exact(raw)
        if found is not None:
            return found
        if here:
            found = self._exact(posixpath.join(here, raw))
            if found is not None:
                return found
        if "/" in raw:
            # Obsidian also accepts a path suffix ('Notes/Idea' for 'Projects/Notes/Idea.md').
            suffix = "/" + strip_md(raw).lower()
            hits = [p for p in self.by_name(base_name(raw)) if strip_md(p).lower().endswith(suffix)]
            return _closest(hits, here)
        return _closest(self.by_name(raw), here)

    def is_unique_name(self, target: str) -> bool:
        return type(self._by_name.get(base_name(target).lower())) is str

    def link_text(self, target: str, source: str, form: LinkForm) -> str:
        """Text that makes a link from `source` resolve to `target`, in `form` when possible."""
        shown = target if form.with_ext or _blank_end(target) else strip_md(target)
        if form.style == "relative":
            rel = relative_to_folder(folder_of(source), shown)
            if form.dot_slash and not rel.startswith("../"):
                rel = "./" + rel
            if self.resolve(rel, source) == target:
                return rel
        if form.style in ("name", "relative") and self.is_unique_name(target):
            name = base_name(shown)
            if self.resolve(name, source) == target:
                return name
        if self.resolve(shown, source) == target:
            return shown
        # A vault path that a same-named file in the source's folder would shadow.
        return "/" + shown


def retargeted(target: str, old_target: str, source_after: str, after: PathSet, moved: Mapping[str, str]) -> str | None:
    """The file a link written `target`, resolving to `old_target` before the change, must be
    rewritten to name (None: its text stays right, or its file is gone). The one decision of
    `service.graph.rewrite.rewrite_note`, also made over the index's link rows
    (`service.graph.move_candidates`)."""
    new_target = moved.get(old_target, old_target)
    if new_target not in after:
        return None
    form = form_of(target, old_target)
    if after.resolve(target, source_after) == new_target and (
        new_target == old_target or form.style != "path" or after.exact(target) == new_target
    ):
        # Still right. A path link to a moved file that only resolves as a path suffix is
        # rewritten anyway: the full path is what Obsidian writes, and every resolver agrees on it.
        return None
    return new_target


def _blank_end(target: str) -> bool:
    """Whether a note's name ends in a space ('Draft .md'): a link target is read trimmed, so
    `[[Draft ]]` would name 'Draft'; such a note keeps its '.md' in the link text."""
    return target.lower().endswith(".md") and target[:-3] != target[:-3].rstrip()


def _closest(hits: list[str], here: str) -> str | None:
    if not hits:
        return None
    if len(hits) == 1:
        return hits[0]
    same = [h for h in hits if folder_of(h) == here]
    if same:
        return same[0]
    return min(hits, key=closeness)
