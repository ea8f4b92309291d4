"""tasks domain: checkbox tasks (`tasks.py`, `completion.py`), periodic notes (`periodic.py`),
templates (`templates.py`)."""

from service.tools.tasks import periodic, tasks, templates

TOOLS = tasks.TOOLS + periodic.TOOLS + templates.TOOLS
