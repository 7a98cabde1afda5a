"""The stream: a few whole days a page, one day per permalink, filters in the query string."""

import datetime
from urllib.parse import urlencode

from django.shortcuts import redirect, render
from django.urls import reverse

from feed import hooks
from feed.conditional import cached_while_unchanged, conditional_on_visible_items
from feed.models import Item
from feed.pages import FACET_LIMIT, stream_context
from feed.stream import day_page, stream_page
from feed.views.common import Filtered, before_date, filter_names, filtered_items, public_page


def _aside(request, filtered: Filtered) -> dict:
    """The facets beside the stream and the names its chips show."""
    tag_names, source_name = filter_names(filtered.query)
    # Active tags rank first (every item carries them) and are left out, so read past them.
    limit = FACET_LIMIT + len(filtered.query.tags)
    # Counting every matching item's tags is the page's one scan: remember it until a change.
    facets = cached_while_unchanged(
        request,
        f"facets:{limit}:{filtered.query.querystring()}",
        lambda: list(filtered.items.tag_counts()[:limit]),
    )
    return {"facets": facets, "tag_names": tag_names, "source_name": source_name}


@public_page
@conditional_on_visible_items
def stream(request):
    """The day-by-day stream of everything visible, narrowed by the query string's filters."""
    filtered = filtered_items(request, Item.objects.visible())
    page = stream_page(hooks.stream_filter(filtered.items, request), before=before_date(request))
    context = stream_context(
        request=request,
        days=hooks.days_arrange(page.days, request),
        query=filtered.query,
        older=page.older,
        **_aside(request, filtered),
    )
    return render(request, "feed/stream.html", context)


@public_page
@conditional_on_visible_items
def day(request, day: datetime.date):
    """One day's items (a permalink), with links to the neighbouring days."""
    filtered = filtered_items(request, Item.objects.visible())
    page = day_page(hooks.stream_filter(filtered.items, request), day=day)
    context = stream_context(
        request=request,
        days=hooks.days_arrange([page.day] if page.day.items else [], request),
        query=filtered.query,
        base=request.path,
        **_aside(request, filtered),
    )
    context.update(day=page.day, older_day=page.older, newer_day=page.newer)
    return render(request, "feed/day.html", context)


@public_page
def tag(request, slug: str):
    """The old address of a tag's stream: the stream filtered by that tag."""
    return redirect(f"{reverse('feed:stream')}?{urlencode({'tag': slug})}", permanent=True)
