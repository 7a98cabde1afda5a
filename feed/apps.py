from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _repair_search_index(sender, using, **kwargs):
    """SQLite drops triggers when a migration rebuilds `feed_item`: put them back."""
    from django.db import connections

    from feed.search_schema import search_schema_repair

    search_schema_repair(connection=connections[using])


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = _("Stream")

    def ready(self):
        post_migrate.connect(_repair_search_index, sender=self)
