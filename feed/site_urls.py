"""The site's URLs outside the `feed` namespace and the language prefix.

robots.txt names the sitemap by these names, and crawlers expect both at the root.
"""

from django.urls import path

from feed import sitemaps
from feed.views import site

urlpatterns = [
    path("sitemap.xml", sitemaps.sitemap_index, name="sitemap"),
    path("sitemap-<str:section>.xml", sitemaps.sitemap_section, name="sitemap-section"),
    path("robots.txt", site.robots_txt, name="robots"),
]
