"""django-tasks-db's app under a name editors can read.

A module of its own: in aitop/apps.py a second AppConfig would stop Django
from picking AitopConfig for "aitop" (and its checks would never register).
"""

from django.utils.translation import gettext_lazy as _
from django_tasks_db.apps import TasksAppConfig


class TasksDatabaseConfig(TasksAppConfig):
    """Its own verbose name is an English constant."""

    verbose_name = _("Background tasks")
