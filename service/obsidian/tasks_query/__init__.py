"""The Tasks plugin's query language (the text of a ```tasks block), evaluated without Obsidian:
`dates` (date phrases into spans of days), `record` (a task as a query sees it), `filters` (one
filter into a test), `boolean` (AND / OR / XOR / NOT lines), `query` (a whole block: read, then
filter, sort, limit, group). Pure: the caller hands in the task records and the day to count from."""

from service.obsidian.tasks_query.filters import Context, QueryError
from service.obsidian.tasks_query.query import LineError, Placed, Query, order_sql, parse_query, run_query
from service.obsidian.tasks_query.record import TaskRecord

__all__ = [
    "Context",
    "LineError",
    "Placed",
    "Query",
    "QueryError",
    "TaskRecord",
    "order_sql",
    "parse_query",
    "run_query",
]
