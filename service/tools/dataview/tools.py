"""search_dql, validate_dql, eval_dataview_field: the dataview domain's tools.

Queries read the cached pages of `service.dataview.pages` (rebuilt only when the index
changes) through the caller's `View`: notes the caller may not read are absent before FROM,
WHERE, GROUP BY, LIMIT and counts, and from every `file.inlinks`; a link value naming a file
they may not read shows as written (unresolved). A query runs under the `[search]
jsonlogic_max_ops` step budget and `regex_max_budget_ms` time budget, with `[limits]` bounding
the values it builds (`compute_budget_exceeded`), counted from when the pages are ready
(building them after an index change is not the query's cost); at most `QUERIES_AT_ONCE` are
evaluated at once (the others wait, their budgets not yet started); syntax errors are
`query_syntax_error` with line and column.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from pydantic import Field

from service.dataview import execute
from service.dataview.check import check
from service.dataview.evaluate import Budget
from service.dataview.items import scope
from service.dataview.pages import PageCache
from service.dataview.query import Query, csv_source, describe, is_dataviewjs, parse_query
from service.dataview.syntax import DqlError
from service.dataview.values import typed
from service.dataview.view import View
from service.errors import ComputeBudgetExceeded, ModeUnavailable, QuerySyntaxError
from service.gcpause import paused
from service.indexer.runner import indexer_of
from service.storage.db import Database
from service.tasks import LoopSlots
from service.tools.context import ToolContext
from service.tools.models import JsonValue, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.search_common import Partial, drop_gone_here, forget_gone, partial, query_key, readable, run
from service.tools.spec import ToolSpec
from service.vault.vault import Vault

# The page sets of each index database and vault, rebuilt when the vault's index changes.
PAGES = PageCache()

QUERY_FIELD: Any = Field(
    min_length=1,
    max_length=20_000,
    description="A DQL query as written in a ```dataview block, e.g. 'TABLE rating, file.mtime FROM #books "
    "WHERE rating > 3 SORT rating DESC'.",
)


JS_MESSAGE = (
    "DataviewJS (JavaScript against Dataview's `dv` API) is not supported: the server evaluates DQL "
    "natively and does not run JavaScript"
)
JS_HINT = (
    "Rewrite the view as a DQL query (LIST, TABLE, TASK or CALENDAR with FROM, WHERE, SORT, GROUP BY, "
    "FLATTEN, LIMIT); dv.pages(source) corresponds to FROM source."
)


def _javascript() -> ModeUnavailable:
    return ModeUnavailable(JS_MESSAGE, details={"language": "dataviewjs", "supported": False}, hint=JS_HINT)


# Dataview reads `FROM csv("path")` (resolver.ts resolveCsvData: one row per CSV line); the server
# does not: such a query is refused as a whole, before any row, saying so.
CSV_MESSAGE = "FROM csv(...) is not supported: the server reads notes, not CSV files, as Dataview sources"
CSV_HINT = 'Read the CSV file itself (read_attachment), or query notes with FROM #tag, "folder" or [[link]].'


def _csv_error(query: Query) -> dict[str, Any] | None:
    """What a query reading a CSV source is answered (message, source, path, supported, hint)."""
    path = csv_source(query.source)
    if path is None:
        return None
    return {"message": CSV_MESSAGE, "source": "csv", "path": path, "supported": False, "hint": CSV_HINT}


def _parse(source: str) -> Query:
    try:
        query = parse_query(source)
    except DqlError as e:
        if is_dataviewjs(source):
            raise _javascript() from None
        raise QuerySyntaxError(
            e.message,
            details={"offset": e.offset, "line": e.line, "column": e.column},
            hint="See Dataview's query structure: a query type, an optional FROM, then data commands.",
        ) from None
    if (csv := _csv_error(query)) is not None:
        raise ModeUnavailable(
            csv["message"], details={k: csv[k] for k in ("source", "path", "supported")}, hint=CSV_HINT
        )
    check(query, source)  # an unknown function, a wrong number of arguments, a bad LIMIT: before any row
    return query


# -- search_dql ----------------------------------------------------------------------------------


class SearchDqlIn(ToolInput, Paging):
    query: str = QUERY_FIELD
    origin: str | None = Field(
        default=None,
        description="The note the query is written in: `this` and [[]] refer to it (default: none).",
    )


class DqlOut(ToolOutput, Partial):
    type: str = Field(description="LIST, TABLE, TASK or CALENDAR.")
    columns: list[str] = Field(description="Column headers (TABLE; the first is the id column unless WITHOUT ID).")
    grouped: bool = Field(description="True after GROUP BY: each row's id is its group key.")
    total: int = Field(description="Result rows (or groups) the caller may see.")
    rows: list[dict[str, JsonValue]] = Field(
        description="This page of rows. Values are {type, value}, with Dataview's type names (string, number, "
        "boolean, date, duration, link, array, object, null); an array or object holding dates, durations or links "
        "also has `types`, theirs by position (null for the other items) or key; a row from a note has `path` and "
        "`obsidian_url`; TABLE rows have `cells` in column order, LIST rows `value`, TASK rows the task's line "
        "(0-based, as Dataview counts; list_tasks and set_task_status count from 1), text, status and fields."
    )
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def _version(ctx: ToolContext) -> int | None:
    """The vault's index generation (read before the query: a later write only makes it newer)."""
    indexer = indexer_of(ctx.vault)
    return indexer.generation if indexer is not None else None


def pages_built(vault: Vault, db: Database) -> bool:
    """Whether a query built the vault's pages since start (the warm-up then keeps them current)."""
    return PAGES.has(db, vault.id)


async def pages_of(vault: Vault, db: Database, version: int | None) -> None:
    """Refresh (incrementally) the vault's pages for index generation `version`, or build them
    (the background warm-up: not a use that keeps idle pages, `PageCache.release_idle`)."""
    vault_id = vault.id
    await db.run_read(lambda conn: PAGES.get(db, conn, vault_id, version, query=False))


def release_idle(idle_s: float) -> int:
    """Drop the Dataview page sets no query has read for `idle_s` seconds; how many were dropped."""
    return PAGES.release_idle(idle_s)


# Queries evaluated at once in a process: each may hold up to [limits] max_list_items rows
# (FLATTEN over FLATTEN: ~330 MB at 10^6 rows), so callers beyond these wait their turn; four
# at once took a 245 MB server to 1.6 GB.
QUERIES_AT_ONCE = 2
_slot = LoopSlots(QUERIES_AT_ONCE)


def _budget(ctx: ToolContext) -> Budget:
    cfg = ctx.services.settings.search
    return Budget(cfg.jsonlogic_max_ops, cfg.regex_max_budget_ms / 1000, ctx.services.settings.limits)


async def search_dql(ctx: ToolContext, args: SearchDqlIn) -> DqlOut:
    query = _parse(args.query)
    origin = (await ctx.find_note(args.origin)).vp.rel if args.origin else None
    key = query_key(args.query, origin)
    offset = decode_cursor(args.cursor, t="dql", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    db, version = ctx.services.db, _version(ctx)
    root = ctx.vault.paths.root
    budgets: list[Budget] = []

    def answer(conn: sqlite3.Connection) -> tuple[DqlOut, set[str]]:
        view = View(PAGES.get(db, conn, vault_id, version), can_read, can_read.everything)
        budgets.append(budget := _budget(ctx))  # counted from here: building the pages is not the query's cost
        if cancelled:
            budget.stop()
        result = execute.run(query, view, budget, origin)
        rows, gone = drop_gone_here(root, result.rows, offset, args.limit, result.paths)
        window, cursor = page_of(rows, offset, args.limit, t="dql", q=key)
        # Rendering evaluates the columns: on this page's rows only, and stops with `overflow`
        # once they are longer than the response limit (a group renders all its tasks).
        max_bytes = ctx.services.settings.governor.max_response_bytes
        out = DqlOut(
            type=result.kind, columns=result.columns, grouped=result.grouped, total=len(rows),
            rows=result.rendered(window, max_bytes, ctx.vault.url), next_cursor=cursor,
        )  # fmt: skip
        return out, gone

    def work(conn: sqlite3.Connection) -> tuple[DqlOut, set[str]]:
        # One pause of the collector from the query to its answer: every row of the result is
        # freed (by reference counting) before it runs again, so no collection walks them (one
        # did, on the event loop between the query and its rendering: 1.25 s at 10^5 notes).
        # A query that ends in its budget leaves no frame (and so no row) to its traceback: freed
        # here, they would be freed on the event loop, with the collector running again.
        with paused():
            try:
                return answer(conn)
            except ComputeBudgetExceeded as exc:
                exc.__traceback__ = None
                raise exc from None

    cancelled = False
    try:
        async with _slot():  # its budget starts when it runs (`answer`), not while it waits
            out, gone = await run(ctx, work)
    finally:  # cancelled meanwhile: the query stops at its budget's next look at the clock
        cancelled = True
        for budget in budgets:
            budget.stop()
    forget_gone(ctx, gone)
    for row in out.rows:
        _add_urls(ctx, row)
    out.partial = partial(ctx)
    return out


def _add_urls(ctx: ToolContext, row: dict[str, Any]) -> None:
    if row.get("path"):
        row["obsidian_url"] = ctx.vault.url(row["path"])
    elif "path" in row:
        del row["path"]
    for task in row.get("tasks", []):
        _add_urls(ctx, task)


# -- validate_dql --------------------------------------------------------------------------------


class ValidateDqlIn(ToolInput):
    query: str = QUERY_FIELD


class ValidateDqlOut(ToolOutput):
    valid: bool = Field(
        description="True when the query parses and every expression could run: its functions exist and are "
        "given arguments they take, a LIMIT written as a literal is a non-negative number."
    )
    parsed: dict[str, JsonValue] | None = Field(
        default=None, description="The query's structure: type, columns, source and commands as expression trees."
    )
    error: dict[str, JsonValue] | None = Field(
        default=None,
        description="When invalid: message, offset (0-based), line and column (1-based; for an unknown function or "
        "a wrong number of arguments, those of its first call, with `function`, and `arguments`, `min`, `max`; for a "
        "call of literals of types the function does not take, `function` and reason 'no_implementation'); for "
        "DataviewJS, which is not supported, message, language 'dataviewjs', supported false and a hint; for a "
        "FROM csv(\"path\") source, which is not supported either, message, source 'csv', path, supported false and "
        "a hint.",
    )


async def validate_dql(ctx: ToolContext, args: ValidateDqlIn) -> ValidateDqlOut:
    try:
        query = parse_query(args.query)
    except DqlError as e:
        if is_dataviewjs(args.query):
            return ValidateDqlOut(
                valid=False,
                error={"message": JS_MESSAGE, "language": "dataviewjs", "supported": False, "hint": JS_HINT},
            )
        error = {"message": e.message, "offset": e.offset, "line": e.line, "column": e.column}
        return ValidateDqlOut(valid=False, error=error)
    if (csv := _csv_error(query)) is not None:
        return ValidateDqlOut(valid=False, error=csv)
    try:
        check(query, args.query)
    except QuerySyntaxError as e:  # what search_dql would answer before reading a row
        return ValidateDqlOut(valid=False, error={"message": e.message, **e.details})
    return ValidateDqlOut(valid=True, parsed=describe(query))


# -- eval_dataview_field -------------------------------------------------------------------------


class EvalFieldIn(ToolInput):
    path: str = Field(min_length=1, description="The note: a path or a wikilink-style name.")
    field: str | None = Field(
        default=None,
        max_length=2000,
        description="A field or expression to evaluate on the note (e.g. 'rating', 'file.tasks.text', "
        "'length(file.outlinks)'); default: every field of the note.",
    )


class EvalFieldOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the note.")
    obsidian_url: str = Field(description="obsidian://open URL of the note.")
    fields: dict[str, JsonValue] = Field(
        description="Field name -> {type, value}: frontmatter, inline fields and `file` (implicit fields), or the "
        "one requested field or expression. An array or object holding dates, durations or links also has `types`: "
        "theirs by position (null for the other items) or by key (a date's value is its ISO text)."
    )


async def eval_dataview_field(ctx: ToolContext, args: EvalFieldIn) -> EvalFieldOut:
    from service.dataview.evaluate import Context, compile_expr
    from service.dataview.syntax import parse_expression

    found = await ctx.find_note(args.path)
    path = found.vp.rel
    expr = None
    if args.field is not None:
        try:
            expr = parse_expression(args.field)
        except DqlError as e:
            raise QuerySyntaxError(
                e.message, details={"field": "field", "offset": e.offset, "line": e.line, "column": e.column}
            ) from None
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    db, version = ctx.services.db, _version(ctx)

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        view = View(PAGES.get(db, conn, vault_id, version), can_read, can_read.everything)
        row = view.row(path)
        if row is None:
            from service.errors import NoteNotFound

            raise NoteNotFound(f"{path!r} is not indexed yet", details={"path": path})
        url = ctx.vault.url
        if expr is None:
            return {k: typed(v, url) for k, v in row.items()}
        ctx_eval = Context(_budget(ctx), view.row_of, view.resolve, row)
        with ctx_eval.budget.active(), scope():
            return {args.field or "": typed(compile_expr(expr, ctx_eval)(row), url)}

    fields = await run(ctx, work)
    return EvalFieldOut(path=path, obsidian_url=ctx.vault.url(path), fields=fields)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_dql",
        domain="dataview",
        title="Run a Dataview query",
        description="Runs a Dataview (DQL) query as the vault owner writes it in ```dataview blocks — LIST, TABLE, "
        "TASK, CALENDAR with FROM, WHERE, SORT, GROUP BY, FLATTEN, LIMIT and Dataview's functions — over "
        "frontmatter, inline `key:: value` fields and file.* fields, without Obsidian. Use it to reproduce an "
        "owner's Dataview view; prefer search_properties or query_jsonlogic for ad-hoc filters. DataviewJS "
        "(```dataviewjs, `$=`) is JavaScript and not supported: it answers mode_unavailable.",
        input_model=SearchDqlIn,
        output_model=DqlOut,
        handler=search_dql,
        tags=("search", "metadata", "dataview"),
    ),
    ToolSpec(
        name="validate_dql",
        domain="dataview",
        title="Check a Dataview query",
        description="Checks a Dataview (DQL) query without running it: its grammar, and that its functions exist "
        "and are given arguments they take. Answers its structure, or the error with its line and column. Use it "
        "before search_dql on a query you wrote.",
        input_model=ValidateDqlIn,
        output_model=ValidateDqlOut,
        handler=validate_dql,
        tags=("search", "dataview"),
    ),
    ToolSpec(
        name="eval_dataview_field",
        domain="dataview",
        title="A note's Dataview fields",
        description="A note's fields as Dataview sees them, each with its type (string, number, boolean, date, "
        "duration, link, array, object): frontmatter, inline `key:: value` fields and file.* — or one field or "
        "expression evaluated on the note. Use it to learn what a Dataview query can filter on.",
        input_model=EvalFieldIn,
        output_model=EvalFieldOut,
        handler=eval_dataview_field,
        tags=("search", "metadata", "dataview"),
    ),
)
