"""The stream: pages of cards by day, one day per permalink, filters in the query string."""

import datetime
from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from feed import hooks
from feed.conditional import public_cache
from feed.models import Item
from feed.page_html import day_page_html, stream_page_html
from feed.pages import stream_context
from feed.paging import StreamPage, neighbour_days, on_day, stream_page
from feed.views.common import Filtered, filter_names, filtered_items, page_before, public_page


def _chip_names(filtered: Filtered, page: StreamPage) -> dict:
    """The names the chips of the active tag and source filters show (from the page's cards)."""
    first = page.days[0].items[:1] if page.days else []
    tag_names, source_name = filter_names(filtered.query, items=first)
    return {"tag_names": tag_names, "source_name": source_name}


@public_page
@public_cache
def stream(request):
    """The stream of everything visible, newest first, narrowed by the query string's filters."""
    filtered = filtered_items(request, Item.objects.visible())
    page = stream_page(hooks.stream_filter(filtered.items, request), before=page_before(request))
    context = stream_context(
        request=request,
        days=hooks.days_arrange(page.days, request),
        query=filtered.query,
        older=page.older,
        **_chip_names(filtered, page),
    )
    # templates/feed/stream.html's page, written without the template engine (feed/page_html.py).
    return HttpResponse(stream_page_html(request, context))


@public_page
@public_cache
def day(request, day: datetime.date):
    """One day's items (a permalink), paged like the stream, with links to the neighbouring days."""
    filtered = filtered_items(request, Item.objects.visible())
    page = stream_page(
        on_day(hooks.stream_filter(filtered.items, request), day=day), before=page_before(request)
    )
    older_day, newer_day = neighbour_days(filtered.items, day=day)
    context = stream_context(
        request=request,
        days=hooks.days_arrange(page.days, request),
        query=filtered.query,
        base=request.path,
        older=page.older,
        **_chip_names(filtered, page),
    )
    context.update(day=day, older_day=older_day, newer_day=newer_day)
    # templates/feed/day.html's page, written without the template engine (feed/page_html.py).
    return HttpResponse(day_page_html(request, context))


@public_page
def tag(request, slug: str):
    """The old address of a tag's stream: the stream filtered by that tag."""
    return redirect(f"{reverse('feed:stream')}?{urlencode({'tag': slug})}", permanent=True)
