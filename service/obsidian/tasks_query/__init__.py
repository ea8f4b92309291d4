"""The Tasks plugin's query language (the text of a ```tasks block), evaluated without Obsidian:
`dates` (date phrases into spans of days), `record` (a task as a query sees it), `filters` (one
filter into a test), `boolean` (AND / OR / XOR / NOT lines), `placeholders` (`{{query.file.path}}`,
presets), `query` (a whole block read, and the order the index hands tasks over in), `columns`
(task records column by column), `run` (filter, sort, limit, group over the columns),
`expressions` / `expression_values` (the safe subset of JavaScript `… by function` lines are read
in). Pure: the caller hands in the task records and the day to count from."""

from service.obsidian.tasks_query.columns import Columns
from service.obsidian.tasks_query.filters import Context, QueryError, global_filter
from service.obsidian.tasks_query.placeholders import Placeholders, file_defaults
from service.obsidian.tasks_query.query import LineError, Query, order_sql, parse_query
from service.obsidian.tasks_query.record import TaskRecord
from service.obsidian.tasks_query.run import Answer, Placed, run_columns, run_query

__all__ = [
    "Answer",
    "Columns",
    "Context",
    "LineError",
    "Placed",
    "Placeholders",
    "Query",
    "QueryError",
    "TaskRecord",
    "file_defaults",
    "global_filter",
    "order_sql",
    "parse_query",
    "run_columns",
    "run_query",
]
