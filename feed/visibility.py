"""What the public may learn about tags: only what visible items carry."""

import datetime

from django.db.models import Exists, OuterRef
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
    carried = TaggedItem.objects.filter(
        tag=OuterRef("pk"), content_object__in=Item.objects.visible(now=now)
    )
    return dict(
        Tag.objects.filter(slug__in=slugs).filter(Exists(carried)).values_list("slug", "name")
    )
