"""The public site: what readers see. Every queryset starts from `visible()`."""

from django.conf import settings
from django.shortcuts import get_object_or_404, redirect, render
from taggit.models import Tag

from feed.models import Item
from feed.stream import group_by_day


def stream(request):
    """The day-by-day stream of everything published, newest first."""
    items = Item.objects.visible().newest_first().for_cards()[: settings.AITOP_STREAM_PAGE_ITEMS]
    return render(request, "feed/stream.html", {"days": group_by_day(items)})


def tag_stream(request, slug: str):
    """The stream narrowed to one tag; the page a tag's link leads to."""
    tag = get_object_or_404(Tag, slug=slug)
    items = (
        Item.objects.visible()
        .tagged(tag.slug)
        .newest_first()
        .for_cards()[: settings.AITOP_STREAM_PAGE_ITEMS]
    )
    return render(request, "feed/stream.html", {"days": group_by_day(items), "tag": tag})


def item_detail(request, pk: int, slug: str):
    """One item's page; readers only ever reach visible items."""
    item = get_object_or_404(Item.objects.visible().for_cards(), pk=pk)
    if slug != item.slug:
        return redirect(item, permanent=True)
    return render(request, "feed/item_detail.html", {"item": item})
