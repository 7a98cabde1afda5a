"""The daily brief as a page, RSS, Atom and JSON Feed."""

import datetime

from django.contrib.syndication.views import Feed
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import formats, translation
from django.utils.feedgenerator import Atom1Feed, Rss201rev2Feed
from django.utils.translation import gettext as _

from feed.conditional import public_cache
from feed.syndication import item_authors, item_categories, item_html
from feed.views.common import public_page
from stories.daily import Brief, daily_brief


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


class DailyRssFeed(Feed):
    """The daily brief as RSS 2.0: one entry per story, its other sources listed."""

    feed_type = Rss201rev2Feed

    def __call__(self, request, *args, **kwargs):
        self.request = request
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request, day: datetime.date) -> Brief:
        return daily_brief(day=day)

    def title(self, brief: Brief) -> str:
        return brief_title(brief.day)

    def link(self, brief: Brief) -> str:
        return reverse("stories:daily", kwargs={"day": brief.day})

    def description(self, brief: Brief) -> str:
        return _("The day's top AI stories by heat.")

    subtitle = description

    # No `language`: Django's Feed reads it as a plain attribute (a method's
    # repr was written out), and without one it takes the active language.

    def items(self, brief: Brief) -> list:
        return brief.items

    def item_title(self, item) -> str:
        return item.title

    def item_description(self, item) -> str:
        original = self.request.build_absolute_uri(reverse("feed:go", kwargs={"pk": item.pk}))
        return item_html(item, original_url=original) + _coverage_html(item)

    def item_link(self, item) -> str:
        return item.get_absolute_url()

    def item_author_name(self, item) -> str:
        return item_authors(item)

    def item_pubdate(self, item):
        return item.published_at

    def item_categories(self, item) -> list[str]:
        return item_categories(item)


class DailyAtomFeed(DailyRssFeed):
    feed_type = Atom1Feed


@public_page
@public_cache
def daily_rss(request, day: datetime.date):
    """RSS 2.0 of one day's brief."""
    return DailyRssFeed()(request, day=day)


@public_page
@public_cache
def daily_atom(request, day: datetime.date):
    """Atom 1.0 of one day's brief."""
    return DailyAtomFeed()(request, day=day)


@public_page
@public_cache
def daily_json(request, day: datetime.date):
    """JSON Feed 1.1 of one day's brief; each item carries its story's other sources."""
    brief = daily_brief(day=day)
    absolute = request.build_absolute_uri
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
                "content_html": item_html(
                    item, original_url=absolute(reverse("feed:go", kwargs={"pk": item.pk}))
                )
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
