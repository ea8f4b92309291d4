"""Fields, indexing and method calls on Bases values, dispatched on the receiver's type.

Groups as in the help page "Functions": any (isTruthy, isType, toString), date (fields year ..
millisecond; date, format, time, relative, isEmpty), string and list (`sequences`), number (abs,
ceil, floor, isEmpty, round, toFixed), link (asFile, linksTo; other calls act on the link's text),
file (fields name .. backlinks; asLink, hasLink, hasProperty, hasTag, inFolder), object (isEmpty,
keys, values), regexp (matches). `this` reads the note's properties (`this.status`) and its file
(`this.file`). `map` / `filter` / `reduce` run their expression once per element with `value`,
`index` and `acc` bound, each element one step of the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.bases import dates
from service.bases.dates import Date, Duration
from service.bases.env import read_property, record_properties
from service.bases.sequences import LIST, STRING
from service.bases.snapshot import PROPERTY, Record
from service.bases.values import (
    EvalError,
    FileRef,
    Link,
    Regex,
    link_path,
    parse_link,
    to_string,
    truthy,
    type_name,
)
from service.budget import held_size

if TYPE_CHECKING:
    from service.bases.env import Env, Fn

_DATE_FIELDS: dict[str, Callable[[Date], int]] = {
    "year": lambda d: d.value.year,
    "month": lambda d: d.value.month,
    "day": lambda d: d.value.day,
    "hour": lambda d: d.value.hour,
    "minute": lambda d: d.value.minute,
    "second": lambda d: d.value.second,
    "millisecond": lambda d: d.value.microsecond // 1000,
}


def file_links(rec: Record, env: Env, embeds: bool = False) -> list[Link]:
    kept = env.ctx.snapshot.link_lists[embeds]  # by record: one of another snapshot is its own key
    cached = kept.get(rec)
    if cached is None:
        # The body's rows (a property's row is skipped: the property values' links come next).
        cached = [
            Link(lr.target, lr.path, lr.alias)
            for lr in rec.links
            if lr.embed is not PROPERTY and bool(lr.embed) == embeds
        ]
        if not embeds:
            for value in record_properties(rec, env.ctx.snapshot).values():
                cached.extend(_links_in(value))
        kept[rec] = cached
    return cached


def _links_in(v: Any) -> list[Link]:
    if isinstance(v, Link):
        return [v]
    if isinstance(v, list):
        return [x for x in v if isinstance(x, Link)]
    return []


def file_field(rec: Record, name: str, env: Env) -> Any:
    if name == "name":
        return rec.name
    if name == "basename":
        return rec.basename
    if name == "path":
        return rec.path
    if name == "folder":
        return rec.folder
    if name == "ext":
        return rec.ext
    if name == "size":
        return rec.size
    if name == "ctime":
        snapshot = env.ctx.snapshot  # the snapshot's array at the record's place (`Snapshot.ctime`), inline
        i, records = rec.i, snapshot.records
        return dates.from_timestamp(
            snapshot.ctimes[i] if 0 <= i < len(records) and records[i] is rec else snapshot.ctime(rec)
        )
    if name == "mtime":
        return dates.from_timestamp(rec.mtime)
    if name == "tags":
        return list(rec.tags)
    if name == "links":
        return list(file_links(rec, env))
    if name == "embeds":
        return list(file_links(rec, env, embeds=True))
    if name == "backlinks":
        snapshot = env.ctx.snapshot
        return [Link(snapshot.by_path[p].basename, p) for p in snapshot.backlinks(rec.path)]
    if name == "properties":
        return record_properties(rec, env.ctx.snapshot)
    if name == "file":
        return FileRef(rec)
    return None


def field(obj: Any, name: str, env: Env) -> Any:
    if isinstance(obj, FileRef):
        if obj.is_this:
            if name == "file":
                return FileRef(obj.record)
            if name == "note":
                return file_field(obj.record, "properties", env)
            return read_property(obj.record, name, env.ctx.snapshot)
        return file_field(obj.record, name, env)
    if isinstance(obj, dict):
        return obj.get(name)
    if isinstance(obj, Date):
        f = _DATE_FIELDS.get(name)
        return f(obj) if f else None
    if isinstance(obj, (str, list)) and name == "length":
        return len(obj)
    if isinstance(obj, Link):
        rec = env.ctx.snapshot.by_path.get(obj.path) if obj.path else None
        return file_field(rec, name, env) if rec is not None else None
    return None


def index(obj: Any, key: Any, env: Env) -> Any:
    if isinstance(obj, (list, str)):
        if isinstance(key, (int, float)) and not isinstance(key, bool) and float(key).is_integer():
            i = int(key)
            return obj[i] if 0 <= i < len(obj) else None
        return None
    if isinstance(key, str):
        return field(obj, key, env)
    return None


def _has_link(rec: Record, target: Any, env: Env) -> bool:
    path = link_path(target)
    if path is None and isinstance(target, (str, Link)):
        text = parse_link(target, None).target if isinstance(target, str) else target.target
        path = env.ctx.snapshot.resolve(text)
        if path is None:  # no such file: links are compared by their text, as Obsidian does
            wanted = text.strip().lower()
            return any(link.path is None and link.target.strip().lower() == wanted for link in rec.links)
    if path is None:
        return False
    return any(link.path == path for link in file_links(rec, env)) or any(
        link.path == path for link in file_links(rec, env, embeds=True)
    )


def tag_matcher(wants: list[str]) -> Callable[[Record], bool]:
    """`file.hasTag(...)` for fixed tags: a tag or any tag nested below it, any case (not
    remembered per record: a note has few tags, and a memo on each of 10^5 records costs more)."""
    norm = [w.lstrip("#").lower() for w in wants]
    exact = frozenset(norm)
    nested = tuple(w + "/" for w in norm)

    def match(rec: Record) -> bool:
        return any(t in exact or t.startswith(nested) for t in (x.lower() for x in rec.tags))

    return match


def _has_tag(rec: Record, args: list[Any]) -> bool:
    return tag_matcher([to_string(a) for a in args])(rec)


def _in_folder(rec: Record, args: list[Any]) -> bool:
    folder = to_string(args[0]).strip("/") if args else ""
    return folder == "" or rec.folder == folder or rec.folder.startswith(folder + "/")


def file_method(name: str, rec: Record, args: list[Any], env: Env) -> Any:
    if name == "asLink":
        return Link(rec.basename, rec.path, to_string(args[0]) if args and args[0] is not None else None)
    if name == "hasLink":
        return _has_link(rec, args[0] if args else None, env)
    if name == "hasProperty":
        return bool(args) and to_string(args[0]) in rec.props
    if name == "hasTag":
        return _has_tag(rec, args)
    if name == "inFolder":
        return _in_folder(rec, args)
    raise _no_method(name, FileRef(rec))


def _round(n: float, args: list[Any]) -> float:
    digits = int(args[0]) if args and isinstance(args[0], (int, float)) else 0
    scale = 10**digits
    value = math.floor(n * scale + 0.5) / scale
    return int(value) if digits <= 0 else value


def _to_fixed(n: float, args: list[Any]) -> str:
    digits = int(args[0]) if args and isinstance(args[0], (int, float)) else 0
    if not 0 <= digits <= 100:
        raise EvalError("toFixed() takes 0 to 100 digits")
    return f"{n:.{digits}f}"


NUMBER: dict[str, Callable[[float, list[Any]], Any]] = {
    "abs": lambda n, a: abs(n),
    "ceil": lambda n, a: math.ceil(n),
    "floor": lambda n, a: math.floor(n),
    "isEmpty": lambda n, a: False,
    "round": _round,
    "toFixed": _to_fixed,
}
DATE: dict[str, Callable[[Date, list[Any]], Any]] = {
    "date": lambda d, a: Date(d.value.replace(hour=0, minute=0, second=0, microsecond=0), has_time=False),
    "format": lambda d, a: dates.format_date(d, to_string(a[0]) if a else "YYYY-MM-DDTHH:mm:ssZ"),
    "time": lambda d, a: d.value.strftime("%H:%M:%S"),
    "relative": lambda d, a: dates.relative(d),
    "isEmpty": lambda d, a: False,
}
OBJECT: dict[str, Callable[[dict[str, Any], list[Any]], Any]] = {
    "isEmpty": lambda o, a: len(o) == 0,
    "keys": lambda o, a: list(o),
    "values": lambda o, a: list(o.values()),
}
ANY = ("isTruthy", "isType", "toString")
FILE = ("asLink", "hasLink", "hasProperty", "hasTag", "inFolder")
LINK = ("asFile", "linksTo")
NAMES = frozenset([*ANY, *FILE, *LINK, "matches", "map", "filter", "reduce", *NUMBER, *DATE, *OBJECT, *STRING, *LIST])


def _no_method(name: str, obj: Any) -> EvalError:
    return EvalError(f"{type_name(obj)} has no method {name}()")


def call(name: str, obj: Any, args: list[Any], env: Env) -> Any:
    if name == "isTruthy":
        return truthy(obj)
    if name == "isType":
        return bool(args) and type_name(obj) == to_string(args[0]).lower()
    if name == "toString":
        return to_string(obj)
    if obj is None:
        return True if name == "isEmpty" else None
    if isinstance(obj, str):
        fn = STRING.get(name)
        if fn is not None:
            return fn(obj, args)
    elif isinstance(obj, list):
        fl = LIST.get(name)
        if fl is not None:
            return fl(obj, args)
    elif isinstance(obj, bool):
        if name == "isEmpty":
            return False
    elif isinstance(obj, (int, float)):
        fn_n = NUMBER.get(name)
        if fn_n is not None:
            return fn_n(obj, args)
    elif isinstance(obj, Date):
        fd = DATE.get(name)
        if fd is not None:
            return fd(obj, args)
    elif isinstance(obj, FileRef):
        return file_method(name, obj.record, args, env)
    elif isinstance(obj, Link):
        return _link_method(name, obj, args, env)
    elif isinstance(obj, dict):
        fo = OBJECT.get(name)
        if fo is not None:
            return fo(obj, args)
    elif isinstance(obj, Regex):
        if name == "matches":
            return bool(args) and obj.run("search", to_string(args[0])) is not None
    elif isinstance(obj, Duration) and name == "isEmpty":
        return False
    raise _no_method(name, obj)


def _link_method(name: str, link: Link, args: list[Any], env: Env) -> Any:
    rec = env.ctx.snapshot.by_path.get(link.path) if link.path else None
    if name == "asFile":
        return FileRef(rec) if rec is not None else None
    if name == "linksTo":
        return rec is not None and bool(args) and _has_link(rec, args[0], env)
    if name == "isEmpty":
        return not link.target
    if name in STRING:
        return STRING[name](link.path or link.target, args)
    raise _no_method(name, link)


def call_lambda(name: str, obj: Any, fns: list[Fn], env: Env) -> Any:
    if obj is None:
        return None
    if not isinstance(obj, list):
        raise EvalError(f"{name}() works on a list, not a {type_name(obj)}")
    if not fns:
        raise EvalError(f"{name}() needs an expression")
    spend, fn, budget = env.ctx.spend, fns[0], env.ctx.budget
    if name == "map":  # each item held beside the ones before it, what its expression built besides given back
        out = []
        for i, v in enumerate(obj):
            spend()
            before = budget.held
            out.append(item := fn(env.child({"value": v, "index": i})))
            budget.held = before
            budget.hold(held_size(item))
        return out
    if name == "filter":  # what the test built is given back
        kept = []
        for i, v in enumerate(obj):
            spend()
            before = budget.held
            if truthy(fn(env.child({"value": v, "index": i}))):
                kept.append(v)
            budget.held = before
        return kept
    before = budget.held
    acc = fns[1](env) if len(fns) > 1 else None
    for i, v in enumerate(obj):  # only the latest accumulator is held
        spend()
        acc = fn(env.child({"value": v, "index": i, "acc": acc}))
        budget.held = before
        budget.hold(held_size(acc))
    return acc
