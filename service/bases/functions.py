"""The global functions of Bases expressions (help page "Functions", section Global).

Each takes the evaluation `Env` and its evaluated arguments; `if` is lazy (only the chosen
branch runs) and lives in `LAZY`. `date`, `duration`, `number` raise `EvalError` on text that
is not a date, a duration or a number, as the help page says.
"""

from __future__ import annotations

import html as html_lib
import random as random_lib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.bases import dates
from service.bases.dates import Date, Duration
from service.bases.values import (
    EvalError,
    FileRef,
    Link,
    Rendered,
    as_number,
    is_empty,
    link_path,
    parse_link,
    to_string,
    truthy,
)

if TYPE_CHECKING:
    from service.bases.env import Env, Fn


def _arg(args: list[Any], i: int, name: str) -> Any:
    if i >= len(args):
        raise EvalError(f"{name}() needs at least {i + 1} argument(s)")
    return args[i]


def _escape_html(env: Env, args: list[Any]) -> Any:
    return html_lib.escape(to_string(_arg(args, 0, "escapeHTML")))


def to_date(v: Any) -> Date | None:
    if v is None:
        return None
    if isinstance(v, Date):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return dates.from_millis(v)
    if isinstance(v, str):
        parsed = dates.parse_date(v)
        if parsed is None:
            raise EvalError(f"date(): {v!r} is not a date (expected YYYY-MM-DD HH:mm:ss)")
        return parsed
    if isinstance(v, Link):
        return to_date(v.target)
    raise EvalError(f"date(): cannot read a date from a {type(v).__name__}")


def _date(env: Env, args: list[Any]) -> Any:
    return to_date(_arg(args, 0, "date"))


def _duration(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0, "duration")
    if isinstance(v, Duration) or v is None:
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return Duration(0, float(v))
    parsed = dates.parse_duration(to_string(v))
    if parsed is None:
        raise EvalError(f"duration(): {v!r} is not a duration (e.g. '1d', '2 hours')")
    return parsed


def file_of(env: Env, v: Any) -> FileRef | None:
    snapshot = env.ctx.snapshot
    if isinstance(v, FileRef):
        return FileRef(v.record)
    path = link_path(v)
    if path is None and isinstance(v, (str, Link)):
        text = v.target if isinstance(v, Link) else v
        path = text if text in snapshot.by_path else snapshot.resolve(parse_link(text, None).target)
    record = snapshot.by_path.get(path) if path is not None else None
    if record is None and path is not None and env.ctx.this is not None and env.ctx.this.path == path:
        record = env.ctx.this
    return FileRef(record) if record is not None else None


def _file(env: Env, args: list[Any]) -> Any:
    return file_of(env, _arg(args, 0, "file"))


def _html(env: Env, args: list[Any]) -> Any:
    return Rendered("html", to_string(_arg(args, 0, "html")))


def _image(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0, "image")
    return Rendered("image", link_path(v) or (v.target if isinstance(v, Link) else to_string(v)))


def _icon(env: Env, args: list[Any]) -> Any:
    return Rendered("icon", to_string(_arg(args, 0, "icon")))


def make_link(env: Env, target: Any, display: Any = None) -> Link | None:
    shown = None if display is None else to_string(display)
    if target is None:
        return None
    if isinstance(target, FileRef):
        return Link(target.record.basename, target.record.path, shown)
    if isinstance(target, Link):
        return Link(target.target, target.path, shown or target.display)
    link = parse_link(to_string(target), env.ctx.snapshot)
    return Link(link.target, link.path, shown or link.display)


def _link(env: Env, args: list[Any]) -> Any:
    return make_link(env, _arg(args, 0, "link"), args[1] if len(args) > 1 else None)


def _list(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0, "list")
    if isinstance(v, list):
        return v
    return [] if v is None else [v]


def _numbers(args: list[Any], name: str) -> list[Any]:
    flat: list[Any] = []
    for a in args:
        flat.extend(a if isinstance(a, list) else [a])
    return [a for a in flat if as_number(a) is not None]


def _max(env: Env, args: list[Any]) -> Any:
    nums = _numbers(args, "max")
    return max(nums, key=lambda v: as_number(v) or 0) if nums else None


def _min(env: Env, args: list[Any]) -> Any:
    nums = _numbers(args, "min")
    return min(nums, key=lambda v: as_number(v) or 0) if nums else None


def _now(env: Env, args: list[Any]) -> Any:
    return env.ctx.now


def _today(env: Env, args: list[Any]) -> Any:
    return dates.today()


def to_number(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, (Date, Duration)):
        return v.millis()
    if isinstance(v, str):
        try:
            number = float(v.strip())
        except ValueError:
            raise EvalError(f"number(): {v!r} is not a number") from None
        return int(number) if number.is_integer() and "." not in v and "e" not in v.lower() else number
    raise EvalError(f"number(): cannot convert a {type(v).__name__} to a number")


def _number(env: Env, args: list[Any]) -> Any:
    return to_number(_arg(args, 0, "number"))


def _random(env: Env, args: list[Any]) -> Any:
    return random_lib.random()  # noqa: S311 - the documented random(), not for secrets


def _if(env: Env, args: list[Fn]) -> Any:
    if len(args) < 2:
        raise EvalError("if() needs a condition and a result")
    if truthy(args[0](env)):
        return args[1](env)
    return args[2](env) if len(args) > 2 else None


GLOBALS: dict[str, Callable[[Env, list[Any]], Any]] = {
    "escapeHTML": _escape_html,
    "date": _date,
    "duration": _duration,
    "file": _file,
    "html": _html,
    "image": _image,
    "icon": _icon,
    "link": _link,
    "list": _list,
    "max": _max,
    "min": _min,
    "now": _now,
    "number": _number,
    "today": _today,
    "random": _random,
    # Spellings of the first Bases release, still found in shipped `.base` files.
    "not": lambda env, args: not truthy(_arg(args, 0, "not")),
    "empty": lambda env, args: is_empty(_arg(args, 0, "empty")),
}
LAZY: dict[str, Callable[[Env, list[Fn]], Any]] = {"if": _if}
