"""What the public may learn about tags: only what visible items carry."""

import datetime

from django.db.models import OuterRef, Subquery
from taggit.models import Tag

from feed.models import Item, TaggedItem


def tag_names_visible(*, slugs: list[str], now: datetime.datetime | None = None) -> dict[str, str]:
    """Slug → name of those tags that at least one visible item carries (one query).

    A tag that only drafts (or rejected or scheduled items) carry is not named
    anywhere public: a chip, a feed's title or a page shows it as the unknown
    slug it was asked for, so nothing confirms that such a tag exists.
    """
    if not slugs:
        return {}
    # The first visible item carrying the tag, not EXISTS: for EXISTS PostgreSQL
    # built the bitmap of every row of a common tag (170,000 at a million items,
    # 10 ms a tag) before looking at one; a LIMIT 1 walks the (tag, item) index
    # and stops at the first visible item.
    carrier = TaggedItem.objects.filter(
        tag=OuterRef("pk"), content_object__in=Item.objects.visible(now=now)
    ).values("pk")[:1]
    return dict(
        Tag.objects.filter(slug__in=slugs)
        .annotate(carrier=Subquery(carrier))
        .filter(carrier__isnull=False)
        .values_list("slug", "name")
    )
