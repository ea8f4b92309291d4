"""tasks domain: checkbox tasks (`tasks.py`, `status.py`, `completion.py`), periodic notes (`periodic.py`),
templates (`templates.py`)."""

from service.tools.tasks import periodic, status, tasks, templates

TOOLS = tasks.TOOLS + status.TOOLS + periodic.TOOLS + templates.TOOLS
