"""Action plans: the plan model, validation and effects, the runner, the journal and undo, macros.

The engine behind the plan tools of the `sessions` domain (`service.tools.sessions.plans`):
`model` (the versioned plan document and its JSON Schema), `refs` (`$steps.<id>...`, `${param}`,
foreach items), `graph` (dependency order), `check` (validation and the effects summary; `refusals`: a step's
tool's `static_check`),
`journal` (prior file states, durable in the state database) and `undo`, `runner` (steps through
the dispatch chain), `macros` (saved plans with parameters).
"""
