"""The site's URLs and the benchmark's hello world."""

from django.http import HttpResponse
from django.urls import path

from aitop.urls import urlpatterns as site_urlpatterns


def hello(request):
    """The ceiling: the smallest answer the project's middleware stack lets through."""
    return HttpResponse("Hello, world", content_type="text/plain")


urlpatterns = [path("_bench/hello/", hello, name="bench-hello"), *site_urlpatterns]
