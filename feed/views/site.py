"""What crawlers read: robots.txt (the sitemap itself is feed.sitemaps)."""

from django.http import HttpResponse
from django.urls import reverse

from feed.views.common import public_page


@public_page
def robots_txt(request):
    """Crawl the pages and the sitemap; stay out of the admin, the click counter and set-up."""
    lines = [
        "User-agent: *",
        f"Disallow: {reverse('admin:index')}",
        "Disallow: /go/",
        f"Disallow: {reverse('set_language')}",
        "",
        f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
