"""A warm public page is answered before the session and the resolver, exactly as the view would."""

import pytest
from django.core.cache import cache
from django.test import Client

from feed.freshness import generation_in_cache
from tests.factories import make_item
from tests.feed.test_page_cache import CACHES

pytestmark = pytest.mark.django_db

WARM = "feed.warm.WarmPageMiddleware"
PAGES = ["/", "/en/", "/?tag=量化&kind=paper", "/days/2026-06-20/", "/feed.xml", "/tags/"]


@pytest.fixture(params=list(CACHES))
def backend(request, settings):
    settings.CACHES = {"default": CACHES[request.param]}
    cache.clear()
    yield request.param
    cache.clear()


def _headers(response) -> dict[str, str]:
    return dict(response.headers.items())


@pytest.mark.parametrize("url", PAGES)
def test_a_warm_hit_sends_the_very_response_the_view_sent(backend, clock, url):
    make_item(title="A story", kind="paper", tags=["量化"])
    client = Client(headers={"accept-encoding": "gzip"})
    rendered = client.get(url)

    warm = client.get(url)

    assert not hasattr(warm.wsgi_request, "session")  # answered before SessionMiddleware
    assert warm.status_code == rendered.status_code == 200
    assert warm.content == rendered.content
    assert _headers(warm) == _headers(rendered)


@pytest.mark.parametrize("url", PAGES)
def test_a_warm_304_has_the_headers_of_the_view_path_304(backend, clock, settings, url):
    make_item(title="A story", kind="paper", tags=["量化"])
    etag = Client().get(url)["ETag"]
    warm = Client().get(url, headers={"if-none-match": etag})
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != WARM]

    viewed = Client().get(url, headers={"if-none-match": etag})

    assert hasattr(viewed.wsgi_request, "session")
    assert warm.status_code == viewed.status_code == 304
    assert _headers(warm) == _headers(viewed)


def test_a_warm_hit_reads_only_the_generation(backend, clock, django_assert_num_queries):
    make_item(title="A story")
    client = Client()
    client.get("/")

    # A shared cache holds the generation; a per-process one leaves it to its row.
    with django_assert_num_queries(0 if generation_in_cache() else 1):
        assert client.get("/").status_code == 200


def test_readers_with_a_session_or_language_cookie_go_through_the_view(clock):
    make_item(title="A story")
    Client().get("/")

    for cookie in ("sessionid", "django_language"):
        reader = Client()
        reader.cookies[cookie] = "en"
        response = reader.get("/", headers={"referer": "http://testserver/"})

        assert hasattr(response.wsgi_request, "session"), cookie
        assert "A story" in response.text


def test_a_nul_in_an_empty_parameter_is_still_the_views_400(clock):
    make_item(title="A story")
    client = Client()
    client.get("/")

    assert client.get("/?q%00=").status_code == 400


def test_the_admin_and_the_api_are_passed_on_without_a_cache_read(client, monkeypatch):
    from feed import conditional

    monkeypatch.setattr(conditional, "generation_current_with", _refuse)

    assert client.get("/admin/login/").status_code == 200
    assert client.get("/api/v1/sources/").status_code == 200


def _refuse(key, **kwargs):
    raise AssertionError(f"read the cache for {key}")
