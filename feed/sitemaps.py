"""sitemap.xml: the public pages and every visible item, nothing else."""

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
    limit = 5000

    def items(self):
        return Item.objects.visible().newest_first().only("id", "title", "updated_at")

    def lastmod(self, item: Item):
        return item.updated_at


SITEMAPS = {"pages": PagesSitemap, "items": ItemSitemap}
