"""The sitemap: an index at /sitemap.xml of the public pages and every visible item."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from feed.models import Item


class PagesSitemap(Sitemap):
    """The stream and its two indexes."""

    changefreq = "hourly"

    def items(self):
        return ["feed:stream", "feed:tag-index", "feed:source-index"]

    def location(self, name: str) -> str:
        return reverse(name)


class ItemSitemap(Sitemap):
    """Every item readers can see, newest first."""

    changefreq = "weekly"
    # Pages of this many, listed by /sitemap.xml: each renders in well under a second.
    limit = 1000

    def items(self):
        return Item.objects.visible().newest_first().only("id", "title", "updated_at")

    def lastmod(self, item: Item):
        return item.updated_at

    def get_latest_lastmod(self):
        # Django's default reads every item for the index; the index does without.
        return None


SITEMAPS = {"pages": PagesSitemap, "items": ItemSitemap}
