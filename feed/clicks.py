"""Readers' clicks through to the original: counted in the database, never lost."""

import datetime

from django.db import transaction
from django.db.models import F

from feed.models import Item
from feed.signals import item_clicked


def item_count_click(*, pk: int, now: datetime.datetime | None = None) -> str | None:
    """Count one click on a visible item and return its original URL; None if readers can't see it.

    One conditional `UPDATE … SET clicks = clicks + 1`: the database adds, so
    concurrent clicks each count, and an invisible item is never touched.
    """
    with transaction.atomic():
        counted = Item.objects.visible(now=now).filter(pk=pk).update(clicks=F("clicks") + 1)
        if not counted:
            return None
        transaction.on_commit(lambda: item_clicked.send(sender=Item, item_id=pk), robust=True)
        return Item.objects.values_list("url", flat=True).get(pk=pk)


def item_original_url(*, pk: int, now: datetime.datetime | None = None) -> str | None:
    """A visible item's original URL, without counting (for HEAD requests and link checkers)."""
    return Item.objects.visible(now=now).filter(pk=pk).values_list("url", flat=True).first()
