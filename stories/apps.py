from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class StoriesConfig(AppConfig):
    name = "stories"
    verbose_name = _("Stories")

    def ready(self) -> None:
        # Connect to feed's and editorial's hooks: they never import us.
        from stories import receivers

        receivers.connect()
