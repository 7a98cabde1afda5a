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


def items_index(*, items: list[Item], signatures: dict[int, Signature]) -> dict[int, list[int]]:
    """`item_index` for many items at once (one DELETE, INSERTs in large batches); their keys."""
    keys = {item.pk: signatures[item.pk].keys() for item in items}
    StorySignal.objects.filter(item__in=list(keys)).delete()
    StorySignal.objects.bulk_create(
        [
            StorySignal(item_id=pk, key=key, at=signatures[pk].at)
            for pk, item_keys in keys.items()
            for key in item_keys
        ],
        batch_size=2000,
    )
    return keys


def candidate_ids(
    *, item: Item, keys: list[int], at: datetime.datetime, limit: int = CANDIDATE_LIMIT
) -> list[int]:
    """Ids of the items sharing a key with `item` near its time, those sharing the most first.

    One indexed query on (key, at): the cost depends on how many items share
    a key in the window, not on the archive.
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
    return [row["item_id"] for row in ranked]


def signatures_of(ids: list[int], *, known: dict[int, Signature]) -> dict[int, Signature]:
    """The signatures of these items, computing (in one query) only those not `known`.

    `known` is filled in: the items of one fetch are each other's candidates,
    and a signature costs far more than comparing two.
    """
    missing = [pk for pk in ids if pk not in known]
    if missing:
        fields = ("title", "summary", "url", "original_published_at", "published_at", "created_at")
        for item in Item.objects.only(*fields).filter(pk__in=missing):
            known[item.pk] = item_signature(item)
    return {pk: known[pk] for pk in ids if pk in known}


def items_without_signals(*, limit: int = 1000):
    """Items not in the index yet (for `stories_index`), oldest first."""
    return (
        Item.objects.filter(story_signals__isnull=True)
        .annotate(moment=Coalesce("original_published_at", "created_at"))
        .order_by("moment", "id")[:limit]
    )
