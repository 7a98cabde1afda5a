from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


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
