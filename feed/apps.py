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
        from django.db.models.signals import m2m_changed, post_delete, post_save
        from taggit.models import Tag

        from feed import freshness
        from feed.models import Item, Source

        # Writes that do not pass through a function calling generation_bump().
        post_save.connect(freshness.item_saved, sender=Item, dispatch_uid="generation-item")
        m2m_changed.connect(
            freshness.item_tags_changed, sender=Item.tags.through, dispatch_uid="generation-tags"
        )
        for model in (Item, Source, Tag):
            post_delete.connect(
                freshness.row_deleted, sender=model, dispatch_uid=f"generation-del-{model.__name__}"
            )
        for model in (Source, Tag):
            post_save.connect(
                freshness.row_renamed,
                sender=model,
                dispatch_uid=f"generation-save-{model.__name__}",
            )
        post_migrate.connect(_repair_search_index, sender=self)
