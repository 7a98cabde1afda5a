"""Helper processes that run project code beside a Django process (fetch_worker's readers).

This module imports nothing of the project's own: a spawned process loads it
(to call `helper_setup`) before Django is set up, and importing a models
module before that fails.
"""

import os
import signal
import threading
import time


def helper_setup(parent: int, settings_module: str, settings_values: dict) -> None:
    """A new helper of process `parent`: Django set up as the parent has it, with these values."""
    helper_forked(parent)
    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module
    import django
    from django.conf import settings

    django.setup()
    for name, value in settings_values.items():
        setattr(settings, name, value)


def helper_forked(parent: int) -> None:
    """A new helper of process `parent`, forked from it (Django already set up), or spawned."""
    # Ctrl-C, or a service manager's SIGTERM, reaches the whole process group;
    # the parent finishes its work first, so its helpers live until it ends them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # A parent killed outright (SIGKILL, the OOM killer) cannot end its helpers:
    # they see it gone and end, rather than wait for work for ever.
    # (`parent` comes from the parent itself: it may be gone before this runs.)
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
