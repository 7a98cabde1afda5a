"""The daily brief as a page, RSS, Atom and JSON Feed."""

import datetime

from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import formats, translation
from django.utils.translation import gettext as _

from feed.conditional import public_cache
from feed.feed_xml import AbsoluteURLs, Channel, Entry, atom_response, rss_response
from feed.syndication import EntryLabels, OriginalLinks, item_authors, item_categories, item_html
from feed.views.common import public_page
from stories.daily import daily_brief


def brief_title(day: datetime.date) -> str:
    return _("AITOP daily brief · %(day)s") % {"day": formats.date_format(day, "DATE_FORMAT")}


@public_page
@public_cache
def daily(request, day: datetime.date):
    """One day in one screen: its top stories, each with its sources."""
    brief = daily_brief(day=day)
    return render(
        request,
        "stories/daily.html",
        {
            "brief": brief,
            "title": brief_title(day),
            "older_day": day - datetime.timedelta(days=1),
            "newer_day": day + datetime.timedelta(days=1),
        },
    )


def _coverage_html(item) -> str:
    from django.utils.html import format_html, format_html_join

    if not getattr(item, "coverage", None):
        return ""
    links = format_html_join(
        "",
        '<li><a href="{}">{}</a> — {}</li>',
        ((o.url, o.source.name, o.title) for o in item.coverage),
    )
    return format_html("<p>{}</p><ul>{}</ul>", _("Also covered by:"), links)


def _daily_feed(request, day: datetime.date) -> tuple[Channel, list[Entry]]:
    """The brief as a feed: one entry per story, its other sources listed."""
    brief = daily_brief(day=day)
    absolute = AbsoluteURLs(request)
    channel = Channel(
        title=brief_title(day),
        link=absolute(reverse("stories:daily", kwargs={"day": day})),
        description=_("The day's top AI stories by heat."),
        feed_url=absolute(request.path),
        language=translation.get_language(),
    )
    labels = EntryLabels.active()
    originals = OriginalLinks(request)
    entries = [
        Entry(
            title=item.title,
            link=absolute(item.get_absolute_url()),
            description=item_html(item, original_url=originals.url(item.pk), labels=labels)
            + _coverage_html(item),
            author=item_authors(item),
            published=item.published_at,
            updated=None,
            categories=item_categories(item, labels),
        )
        for item in brief.items
    ]
    return channel, entries


@public_page
@public_cache
def daily_rss(request, day: datetime.date):
    """RSS 2.0 of one day's brief."""
    return rss_response(*_daily_feed(request, day))


@public_page
@public_cache
def daily_atom(request, day: datetime.date):
    """Atom 1.0 of one day's brief."""
    return atom_response(*_daily_feed(request, day))


@public_page
@public_cache
def daily_json(request, day: datetime.date):
    """JSON Feed 1.1 of one day's brief; each item carries its story's other sources."""
    brief = daily_brief(day=day)
    absolute = request.build_absolute_uri
    originals = OriginalLinks(request)
    body = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": brief_title(day),
        "home_page_url": absolute(reverse("stories:daily", kwargs={"day": day})),
        "feed_url": absolute(request.path),
        "language": translation.get_language(),
        "items": [
            {
                "id": absolute(item.get_absolute_url()),
                "url": absolute(item.get_absolute_url()),
                "external_url": item.url,
                "title": item.title,
                "content_html": item_html(item, original_url=originals.url(item.pk))
                + _coverage_html(item),
                "date_published": item.published_at.isoformat(),
                "authors": [{"name": item_authors(item)}],
                "tags": item_categories(item),
                "_aitop": {
                    "heat": item.heat,
                    "story": [
                        {"title": o.title, "url": o.url, "source": o.source.name}
                        for o in item.coverage
                    ],
                },
            }
            for item in brief.items
        ],
    }
    return JsonResponse(
        body,
        content_type="application/feed+json; charset=utf-8",
        json_dumps_params={"ensure_ascii": False},
    )
