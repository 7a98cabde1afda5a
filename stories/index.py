"""The persisted story index: writing an item's keys, and finding its candidates."""

import datetime

from django.db.models import Count
from django.db.models.functions import Coalesce

from feed.models import Item
from stories.matching.signature import Signature, signature_of
from stories.models import StorySignal

# Candidates are looked up this far either side of the item's time.
CANDIDATE_WINDOW = datetime.timedelta(days=3)
CANDIDATE_LIMIT = 50


def item_time(item: Item) -> datetime.datetime:
    """The time a story happened: the original publication, else when we first saw it."""
    return item.original_published_at or item.published_at or item.created_at


def item_signature(item: Item) -> Signature:
    return signature_of(title=item.title, summary=item.summary, url=item.url, at=item_time(item))


def item_index(*, item: Item, signature: Signature | None = None) -> list[int]:
    """Replace the item's keys in the index; returns them."""
    signature = signature or item_signature(item)
    keys = signature.keys()
    StorySignal.objects.filter(item=item).delete()
    StorySignal.objects.bulk_create(
        [StorySignal(item=item, key=key, at=signature.at) for key in keys]
    )
    return keys


def item_candidates(
    *, item: Item, keys: list[int], at: datetime.datetime, limit: int = CANDIDATE_LIMIT
) -> list[Item]:
    """Items sharing a key with `item` near its time, those sharing the most first.

    One indexed query on (key, at) and one for the candidates' text: the cost
    depends on how many items share a key in the window, not on the archive.
    """
    ranked = (
        StorySignal.objects.filter(
            key__in=keys, at__gte=at - CANDIDATE_WINDOW, at__lte=at + CANDIDATE_WINDOW
        )
        .exclude(item_id=item.pk)
        .values("item_id")
        .annotate(hits=Count("key"))
        .order_by("-hits", "-item_id")[:limit]
    )
    ids = [row["item_id"] for row in ranked]
    by_id = Item.objects.select_related("source", "story_link").in_bulk(ids)
    return [by_id[pk] for pk in ids if pk in by_id]


def items_without_signals(*, limit: int = 1000):
    """Items not in the index yet (for `stories_index`), oldest first."""
    return (
        Item.objects.filter(story_signals__isnull=True)
        .annotate(moment=Coalesce("original_published_at", "created_at"))
        .order_by("moment", "id")[:limit]
    )
