from django.apps import AppConfig


class AitopConfig(AppConfig):
    """The project package as an app: it carries the production checks."""

    name = "aitop"
    verbose_name = "AITOP"

    def ready(self):
        from aitop import checks  # noqa: F401 (registers them)
