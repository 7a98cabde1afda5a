"""Indexes of what the stream can be filtered by: every tag and every source, with counts."""

from django.shortcuts import render

from feed.conditional import conditional_on_visible_items
from feed.links import StreamQuery
from feed.models import Item
from feed.pages import stream_url
from feed.views.common import public_page

NO_FILTERS = StreamQuery()


@public_page
@conditional_on_visible_items
def tag_index(request):
    """Every tag readers can see items under, most used first, each linking to its stream."""
    tags = [
        {"tag": tag, "url": stream_url(NO_FILTERS.with_tag(tag.slug))}
        for tag in Item.objects.visible().tag_counts()
    ]
    return render(request, "feed/tag_index.html", {"tags": tags})


@public_page
@conditional_on_visible_items
def source_index(request):
    """Every source with visible items, its kind and count, each linking to its stream."""
    sources = [
        {"source": source, "url": stream_url(NO_FILTERS.replace(source=source.slug))}
        for source in Item.objects.visible().source_counts()
    ]
    return render(request, "feed/source_index.html", {"sources": sources})
