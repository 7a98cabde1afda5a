"""The public site's URLs. Filters live in the query string, never in the path."""

from django.urls import path

from feed import (
    converters,  # noqa: F401  (registers the `day` converter used below)
    syndication,
)
from feed.views import indexes, items, stream

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
    path("feed.xml", syndication.rss, name="rss"),
    path("feed.atom", syndication.atom, name="atom"),
    path("feed.json", syndication.json_feed, name="json"),
]
