"""WSGI entry point: `gunicorn aitop.wsgi`."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aitop.settings")

application = get_wsgi_application()

# gunicorn runs no system checks of its own: a production set-up that only
# works in one process (aitop/checks.py) stops here instead of serving.
from aitop.checks import refuse_to_start  # noqa: E402

refuse_to_start()


# What is loaded by now (Django, the apps, their modules: about 130,000 objects)
# lives as long as the process. Frozen, the collector's full passes leave it
# out: each one walked all of it, about 80 ms, every few hundred cold pages.
gc.freeze()
