"""The adapter between a draft and the public templates, for the staff preview.

The preview renders the public stream and item templates unchanged; this
module is the one place that knows what those templates expect, so when the
public site's templates change only the names and contexts below follow.
"""

import datetime

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from feed.models import Item
from feed.pages import item_page_context
from feed.pages import stream_context as public_stream_context
from feed.paging import group_by_day

#: Each extends the public template of the same page and adds the banner.
STREAM_TEMPLATE = "editorial/preview_stream.html"
ITEM_TEMPLATE = "editorial/preview_item.html"


def item_as_readers_will_see_it(item: Item, *, now: datetime.datetime) -> Item:
    """The item, in memory only, as it will look once public (nothing is saved)."""
    if not (item.is_visible(now) or item.is_scheduled(now)):
        # The card shows the time it will go out: its schedule, or now.
        item.published_at = item.published_at or now
    preview_url = reverse("editorial:preview-item", args=[item.pk])
    # In the preview the draft's links lead to its preview: its public page
    # does not exist yet.
    item.get_absolute_url = lambda: preview_url
    return item


def stream_context(request, item: Item, *, now: datetime.datetime | None = None) -> dict:
    """The public stream's context for the draft's day, with the draft in its place."""
    now = now or timezone.now()
    item = item_as_readers_will_see_it(item, now=now)
    day = timezone.localdate(item.published_at)
    neighbours = list(
        Item.objects.visible(now=now)
        .on_day(day)
        .exclude(pk=item.pk)
        .newest_first()
        .for_cards()[: settings.AITOP_STREAM_PAGE_ITEMS - 1]
    )
    items = sorted([*neighbours, item], key=lambda i: (i.published_at, i.pk), reverse=True)
    # The sidebar as readers will see it: the tags of the page's items, the draft's among them.
    context = public_stream_context(request=request, days=group_by_day(items))
    return {**context, "preview_item": item}


def item_context(request, item: Item, *, now: datetime.datetime | None = None) -> dict:
    """The public item page's context for the draft."""
    item = item_as_readers_will_see_it(item, now=now or timezone.now())
    return {**item_page_context(request=request, item=item), "preview_item": item}
