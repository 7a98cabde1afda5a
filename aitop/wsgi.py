"""WSGI entry point: `gunicorn aitop.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aitop.settings")

application = get_wsgi_application()

# gunicorn runs no system checks of its own: a production set-up that only
# works in one process (aitop/checks.py) stops here instead of serving.
from aitop.checks import refuse_to_start  # noqa: E402

refuse_to_start()
