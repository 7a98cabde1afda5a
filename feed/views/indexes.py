"""Indexes of what the stream can be filtered by: the newest items' tags and sources, counted.

Counted over the newest AITOP_FACET_WINDOW visible items, so each index costs
the same whatever the size of the site (docs/caching.md says why).
"""

from django.conf import settings
from django.shortcuts import render

from feed.conditional import public_cache
from feed.links import NO_FILTERS
from feed.models import Item
from feed.pages import stream_link
from feed.views.common import public_page

# An index lists at most this many entries, most used first.
INDEX_LIMIT = 500


@public_page
@public_cache
def tag_index(request):
    """The tags of the newest visible items, most used first, each linking to its stream."""
    tags = [
        {"tag": tag, "url": stream_link(NO_FILTERS.with_tag(tag.slug))}
        for tag in Item.objects.visible().tag_counts(window=settings.AITOP_FACET_WINDOW)[
            :INDEX_LIMIT
        ]
    ]
    return render(
        request, "feed/tag_index.html", {"tags": tags, "window": settings.AITOP_FACET_WINDOW}
    )


@public_page
@public_cache
def source_index(request):
    """The sources of the newest visible items, kind and count, each linking to its stream."""
    sources = [
        {"source": source, "url": stream_link(NO_FILTERS.replace(source=source.slug))}
        for source in Item.objects.visible().source_counts(window=settings.AITOP_FACET_WINDOW)[
            :INDEX_LIMIT
        ]
    ]
    return render(
        request,
        "feed/source_index.html",
        {"sources": sources, "window": settings.AITOP_FACET_WINDOW},
    )
