"""tasks domain: checkbox tasks (`tasks.py`, `status.py`, `completion.py`), Tasks plugin queries
(`filtering.py`, `task_records.py`), periodic notes (`periodic.py`), templates (`templates.py`)."""

from service.tools.tasks import filtering, periodic, status, tasks, templates

TOOLS = tasks.TOOLS + filtering.TOOLS + status.TOOLS + periodic.TOOLS + templates.TOOLS
