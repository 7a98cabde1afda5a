"""The sitemap: an index at /sitemap.xml of the public pages and the visible items, by month.

Each items section is one month of publish times: a range of the stream
index, read in the index's order, never a COUNT or an OFFSET. The index
itself costs two index reads (the oldest and the newest visible item). Every
URL carries its English alternate (hreflang).
"""

import datetime
import re

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation

from aitop.days import day_start
from feed.conditional import public_cache
from feed.models import Item
from feed.views.common import public_page

# The sitemap protocol's limit of URLs in one file.
SECTION_LIMIT = 50_000
PAGES = ("feed:stream", "feed:tag-index", "feed:source-index")
_MONTH_SECTION = re.compile(r"^items-(\d{4})-(\d{2})$")


def _month_start(year: int, month: int) -> datetime.datetime:
    return day_start(datetime.date(year, month, 1))


def _next_month(year: int, month: int) -> tuple[int, int]:
    return (year + 1, 1) if month == 12 else (year, month + 1)


def _months(oldest: datetime.date, newest: datetime.date) -> list[str]:
    """Section names from the newest month back to the oldest."""
    names, year, month = [], newest.year, newest.month
    while (year, month) >= (oldest.year, oldest.month):
        names.append(f"items-{year:04d}-{month:02d}")
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
    return names


def _entry(request, *, path_for, lastmod=None, changefreq: str = "") -> dict:
    """One <url>: the Chinese address, with every language's alternate."""
    alternates = []
    for code in ("zh-hans", "en"):
        with translation.override(code):
            alternates.append(
                {"lang_code": code, "location": request.build_absolute_uri(path_for())}
            )
    return {
        "location": alternates[0]["location"],
        "lastmod": lastmod,
        "changefreq": changefreq,
        "alternates": alternates,
    }


@public_page
@public_cache
def sitemap_index(request):
    """The list of sections: the pages, then one per month that may hold visible items."""
    visible = Item.objects.visible()
    newest = visible.newest_first().values_list("published_at", flat=True).first()
    oldest = visible.order_by("published_at", "id").values_list("published_at", flat=True).first()
    names = ["pages"]
    if newest is not None:
        names += _months(timezone.localdate(oldest), timezone.localdate(newest))
    sitemaps = [
        {"location": request.build_absolute_uri(reverse("sitemap-section", args=[name]))}
        for name in names
    ]
    return render(
        request, "sitemap_index.xml", {"sitemaps": sitemaps}, content_type="application/xml"
    )


@public_page
@public_cache
def sitemap_section(request, section: str):
    """One section: the public pages, or the visible items of one month, newest first."""
    if section == "pages":
        urlset = [
            _entry(request, path_for=lambda name=name: reverse(name), changefreq="hourly")
            for name in PAGES
        ]
    elif match := _MONTH_SECTION.match(section):
        year, month = int(match[1]), int(match[2])
        if not (1900 <= year <= 9998 and 1 <= month <= 12):
            raise Http404("No such sitemap section.")
        items = (
            Item.objects.visible()
            .filter(
                published_at__gte=_month_start(year, month),
                published_at__lt=_month_start(*_next_month(year, month)),
            )
            .newest_first()
            .only("id", "title", "updated_at", "published_at")[:SECTION_LIMIT]
        )
        urlset = [
            _entry(
                request,
                path_for=item.get_absolute_url,
                lastmod=item.updated_at,
                changefreq="weekly",
            )
            for item in items
        ]
    else:
        raise Http404("No such sitemap section.")
    return render(request, "sitemap.xml", {"urlset": urlset}, content_type="application/xml")
