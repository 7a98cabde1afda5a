from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EnrichmentConfig(AppConfig):
    name = "enrichment"
    verbose_name = _("AI enrichment")

    def ready(self):
        # feed never imports enrichment: it sends signals we listen to, and the
        # item admin (editorial's) gets our inline and actions from here.
        from enrichment import receivers  # noqa: F401
        from enrichment.admin import item_admin_extend

        item_admin_extend()
