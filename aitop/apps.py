from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _
from django_tasks_db.apps import TasksAppConfig


class AitopConfig(AppConfig):
    """The project package as an app: it carries the production checks."""

    name = "aitop"
    verbose_name = "AITOP"

    def ready(self):
        from aitop import checks  # noqa: F401 (registers them)


class TasksDatabaseConfig(TasksAppConfig):
    """django-tasks-db under a name editors can read: its own is an English constant."""

    verbose_name = _("Background tasks")
