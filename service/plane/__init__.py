"""The consolidation plane: background jobs that keep a shared vault and its memory clean.

`jobs.JOBS` is the ordered tuple of jobs (one module each: duplicates, contradictions, stale,
audit, topics, digest); `plane.Plane` is the app component that schedules their runs per vault
(every `[plane] interval_minutes`, or sooner after `after_changes` changed notes, once the server
has been up `after_start_minutes`, at a pause in the calls, one run per vault at a time, its
state kept in the state database) and runs them on demand (`run_consolidation`); `findings` keeps
what they found. Nothing here changes the vault: findings carry action plans that the plans engine
validates, previews, executes and undoes.
"""
