"""Shared shapes for tool inputs and outputs.

Every input model extends `ToolInput` (extra fields forbidden; the common `vault`,
`idempotency_key` and `elicit_token` arguments, described once here in a few words: their long
story is in docs/tools-guide.md, not in every tool's schema). The two pipeline arguments may
also travel in the request's `_meta` under the keys of `META_KEYS`
(`{"_meta": {"vaultgate/idempotency_key": "..."}}`), for clients that keep call bookkeeping out of
the arguments; the validate layer merges them. Every output model extends `ToolOutput`, whose
`to_text()` is the short text rendering sent beside the structured content.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import ErrorDetails

from service.errors import ValidationFailed

# Arguments the pipeline consumes itself; excluded from args_hash.
PIPELINE_ARGS = frozenset({"idempotency_key", "elicit_token"})
# The request `_meta` key that may carry each pipeline argument instead of the arguments.
META_KEYS = {"idempotency_key": "vaultgate/idempotency_key", "elicit_token": "vaultgate/elicit_token"}
PIPELINE_MAX_LENGTH = 200
MAX_ISSUES = 50  # field issues an invalid call's error lists in details (details.issues_total counts them all)
TOO_LARGE = frozenset({"string_too_long", "too_long", "bytes_too_long"})  # pydantic's length errors
# The `path` of a tool that works on an existing note (`ToolContext.find_note`).
NOTE_ADDRESS = "Note path ('.md' optional) or as a wikilink names it: bare name, partial path, alias, any case."
FILE_ADDRESS = (
    " Any other file links point at (a canvas, a .base, an image) by its path or its name with its extension, "
    "as an embed names it ('Board.canvas', 'cover.jpg')."
)

# Any JSON value, spelled so that every branch has a JSON `type`: a bare `Any` becomes the schema
# `{}`, which clients' schema-portability checks report as accepting anything, and which models and
# form builders cannot map onto a type.
JsonValue = Annotated[
    Any,
    WithJsonSchema({"anyOf": [{"type": t} for t in ("string", "number", "boolean", "array", "object", "null")]}),
]


def _one_heading(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


# A heading path (outermost first); one heading may be given as a plain string ('Goals' is
# ['Goals']), as agents write it and as a `Note#Heading` address spells it. The schema stays an array.
HeadingPath = Annotated[list[str], BeforeValidator(_one_heading)]


class ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, defer_build=True)

    vault: str | None = Field(default=None, description="Vault id (default: the default vault).")
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=PIPELINE_MAX_LENGTH,
        description="Makes retries safe: a repeat with the same arguments replays the first result.",
    )
    elicit_token: str | None = Field(
        default=None,
        min_length=1,
        max_length=PIPELINE_MAX_LENGTH,
        description="Token a human minted after `elicit_required`.",
    )


class ToolOutput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    def to_text(self) -> str:
        """Compact JSON without the unset (None) fields, encoded by pydantic itself: a 10-hit
        search page in ~7 µs against ~37 µs through `model_dump` and `json.dumps`."""
        return self.model_dump_json(exclude_none=True)

    def content_blocks(self) -> list[Any]:
        """Extra MCP content (images, embedded resources) sent after the text block."""
        return []


class NoteRef(BaseModel):
    """What every file-based result carries."""

    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="The file name less its extension, as Obsidian's basename ('Note.md': 'Note').")
    obsidian_url: str = Field(description="obsidian://open URL that opens the note in Obsidian.")


class Paging(BaseModel):
    limit: int = Field(default=50, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page.")


def encode_cursor(offset: int, **state: Any) -> str:
    raw = json.dumps({"o": offset, **state}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, **expect: Any) -> int:
    """Offset encoded in a cursor; a cursor from another query is a validation error."""
    if not cursor:
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = int(data["o"])
    except (ValueError, KeyError, TypeError, OverflowError):  # OverflowError: {"o": Infinity}
        raise ValidationFailed("invalid cursor", details={"field": "cursor"}) from None
    for key, value in expect.items():
        if data.get(key) != value:
            raise ValidationFailed("cursor belongs to a different query", details={"field": "cursor"})
    if offset < 0:
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    return offset


def _cursor_data(cursor: str) -> dict[str, Any]:
    try:
        data = json.loads(base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode()))
    except (ValueError, TypeError):
        data = None
    if not isinstance(data, dict):
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    return data


def decode_after(cursor: str | None, **expect: Any) -> tuple[Any, ...] | None:
    """The sort key of the last item a keyset cursor's page listed (None: no cursor). A cursor of
    the older offset form, or from another query, is a validation error (start again without one)."""
    if not cursor:
        return None
    data = _cursor_data(cursor)
    mark = data.get("a")
    if not isinstance(mark, list) or not mark:
        if "o" in data:
            raise ValidationFailed(
                "cursor of an earlier form: list again without a cursor",
                details={"field": "cursor", "reason": "stale_cursor"},
            )
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    for key, value in expect.items():
        if data.get(key) != value:
            raise ValidationFailed("cursor belongs to a different query", details={"field": "cursor"})
    return tuple(mark)


T = TypeVar("T")


def page_after(
    items: Sequence[T],
    key: Callable[[T], tuple[Any, ...]],
    mark: tuple[Any, ...] | None,
    limit: int,
    *,
    descending: bool = False,
    **state: Any,
) -> tuple[list[T], str | None]:
    """Keyset paging: the `limit` items after `mark` in `items` (sorted by `key`, a total order,
    descending if so), and the cursor naming the last one. Items created or removed before the
    mark shift no later page: every unchanged item is listed once."""
    try:
        rest = items if mark is None else [i for i in items if (key(i) < mark if descending else key(i) > mark)]
    except TypeError:  # a mark of another shape than this listing's keys
        raise ValidationFailed("invalid cursor", details={"field": "cursor"}) from None
    window = list(rest[:limit])
    more = len(rest) > limit
    return window, (encode_after(key(window[-1]), **state) if more and window else None)


def encode_after(mark: Sequence[Any], **state: Any) -> str:
    raw = json.dumps({"a": list(mark), **state}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def page_of(items: list[Any], offset: int, limit: int, **state: Any) -> tuple[list[Any], str | None]:
    window = items[offset : offset + limit]
    more = offset + limit < len(items)
    return window, (encode_cursor(offset + limit, **state) if more else None)


def accepted_arguments(model: type[BaseModel]) -> list[str]:
    """The tool's own argument names, in its schema's order (the pipeline's and `vault` last)."""
    own = [n for n in model.model_fields if n not in PIPELINE_ARGS and n != "vault"]
    return [*own, "vault", *sorted(PIPELINE_ARGS)]


def invalid_arguments(tool: str, model: type[BaseModel], errors: Sequence[ErrorDetails]) -> ValidationFailed:
    """The error a call of `tool` whose arguments its input model refuses with `errors` answers (the
    validate layer's, and a plan's check's for such a step): every field issue in `details.issues`
    (at most `MAX_ISSUES`), the first five in the message, what the tool takes where an argument
    is none of its own, a too-long one as the tool's own size checks name it."""
    issues = [
        {"field": ".".join(str(p) for p in e["loc"]) or "(arguments)", "issue": e["msg"], "type": e["type"]}
        for e in errors[:MAX_ISSUES]
    ]
    details: dict[str, Any] = {"issues": issues}
    if len(errors) > MAX_ISSUES:  # 100,000 unknown arguments are not listed back one by one
        details["issues_total"] = len(errors)
    large = [i["field"] for i in issues if i["type"] in TOO_LARGE]
    if large:  # as a tool's own size checks answer
        details.update(reason="too_large", field=large[0])
    if any(i["type"] == "extra_forbidden" for i in issues):
        # `path` given to list_tasks (which takes `note`): name what the tool does take
        details["accepted"] = accepted_arguments(model)
    takes = f" ({tool} takes: {', '.join(details['accepted'])})" if "accepted" in details else ""
    return ValidationFailed(
        f"invalid arguments for {tool}: " + "; ".join(f"{i['field']}: {i['issue']}" for i in issues[:5]) + takes,
        details=details,
        # describe_capability works for every tool; tools/list shows only the advertised ones
        hint=f"Check the arguments against {tool}'s input schema: "
        f'describe_capability {{"name": "{tool}"}} returns it.',
    )
