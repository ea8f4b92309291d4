"""tasks domain: checkbox tasks (`tasks.py`), periodic notes (`periodic.py`), templates (`templates.py`)."""

from service.tools.tasks import tasks

TOOLS = tasks.TOOLS
