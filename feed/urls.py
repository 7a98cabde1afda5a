"""The public site's URLs. Filters live in the query string, never in the path."""

import datetime

from django.urls import path, register_converter

from feed import feeds, sitemaps
from feed.filters import EARLIEST_DATE, LATEST_DATE
from feed.views import indexes, items, site, stream


class DayConverter:
    """A YYYY-MM-DD date in the path; an impossible date is no match (a 404)."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> datetime.date:
        day = datetime.date.fromisoformat(value)
        if not EARLIEST_DATE <= day <= LATEST_DATE:
            raise ValueError(value)
        return day

    def to_url(self, value: datetime.date) -> str:
        return value.isoformat()


register_converter(DayConverter, "day")

app_name = "feed"

urlpatterns = [
    path("", stream.stream, name="stream"),
    path("days/<day:day>/", stream.day, name="day"),
    # `str`, not `slug`: tag and item slugs keep Chinese characters.
    path("tags/", indexes.tag_index, name="tag-index"),
    path("tags/<str:slug>/", stream.tag, name="tag"),
    path("sources/", indexes.source_index, name="source-index"),
    path("items/<int:pk>/", items.item_short, name="item-short"),
    path("items/<int:pk>/<str:slug>/", items.item_detail, name="item-detail"),
    path("go/<int:pk>/", items.go, name="go"),
    path("feed.xml", feeds.rss, name="rss"),
    path("feed.atom", feeds.atom, name="atom"),
    path("feed.json", feeds.json_feed, name="json"),
]

# Outside the namespace: robots.txt names the sitemap by these names.
site_urlpatterns = [
    path("sitemap.xml", sitemaps.sitemap_index, name="sitemap"),
    path("sitemap-<str:section>.xml", sitemaps.sitemap_section, name="sitemap-section"),
    path("robots.txt", site.robots_txt, name="robots"),
]
