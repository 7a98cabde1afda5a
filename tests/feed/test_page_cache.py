"""The whole-page cache: never stale after a commit, one render per burst, gzip, no cookies."""

import gzip
import os
import threading
import time

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client, RequestFactory

from editorial.edits import item_edit
from editorial.workflow import item_publish, item_reject
from feed import conditional
from feed.freshness import Freshness
from tests.factories import make_item, make_source, make_user

_REDIS = os.environ.get("CACHE_URL", "")
CACHES = {
    "locmem": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "stale"},
    # The Redis the suite runs with, else database 2 of the local one: not the
    # database 1 a PostgreSQL run beside this one may use (docs/caching.md).
    "redis": {
        "BACKEND": "aitop.redis_cache.ReusingRedisCache",
        "LOCATION": _REDIS if _REDIS.startswith("redis://") else "redis://127.0.0.1:6379/2",
    },
}
# Where the items' titles show…
SURFACES = [
    "/",
    "/?kind=paper",
    "/days/2026-06-20/",
    "/feed.xml",
    "/feed.json",
    "/en/",
    # The API's anonymous answers are cached by generation as the pages are (api/cache.py).
    "/api/v1/items/",
    "/api/v1/items/?kind=paper&page_size=5",
    "/api/v1/items/?ordering=hot",
]
# …and where their tags and sources do.
INDEXES = ["/tags/", "/sources/", "/api/v1/tags/", "/api/v1/tags/?kind=paper"]


def _everything(client, *items) -> dict[str, str]:
    # Each item's own API answer too: a 404 until it is public, and after.
    urls = [*SURFACES, *INDEXES, "/sitemap-items-2026-06.xml"]
    urls += [f"/api/v1/items/{item.pk}/" for item in items]
    return {url: client.get(url).text for url in urls}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("backend", CACHES)
def test_no_answer_shows_the_old_state_once_the_commit_returns(settings, clock, backend):
    settings.CACHES = {"default": CACHES[backend]}
    cache.clear()
    client = Client()
    chief = make_user(is_superuser=True, is_staff=True)
    story = make_item(
        title="Old title", source=make_source(name="Lumen Lab"), kind="paper", tags=["量化"]
    )
    draft = make_item(
        title="Waiting draft",
        source=make_source(name="Fresh Source"),
        status="draft",
        kind="paper",
        tags=["新品"],
    )
    before = _everything(client, story, draft)  # every surface is now cached
    assert client.get(f"/api/v1/items/{draft.pk}/").status_code == 404

    item_publish(item=draft, by=chief)
    after_publish = _everything(client, story, draft)
    item_edit(item=story, by=chief, changes={"title": "New title"}, expected_version=story.version)
    after_edit = _everything(client, story, draft)
    item_reject(item=story, by=chief, reason="Off topic.")
    after_reject = _everything(client, story, draft)

    for url in SURFACES:
        assert "Waiting draft" not in before[url], url
        assert "Waiting draft" in after_publish[url], url
        assert "New title" in after_edit[url] and "Old title" not in after_edit[url], url
        assert "New title" not in after_reject[url], url
    story_api, draft_api = f"/api/v1/items/{story.pk}/", f"/api/v1/items/{draft.pk}/"
    assert "Waiting draft" in after_publish[draft_api]
    assert "New title" in after_edit[story_api] and "Old title" not in after_edit[story_api]
    assert "not_found" in after_reject[story_api]
    for url in INDEXES:
        assert "新品" in after_publish[url] or "Fresh Source" in after_publish[url], url
        assert "量化" not in after_reject[url] and "Lumen Lab" not in after_reject[url], url
    sitemap = "/sitemap-items-2026-06.xml"
    assert f"/items/{draft.pk}/" in after_publish[sitemap]
    assert f"/items/{story.pk}/" not in after_reject[sitemap]
    cache.clear()


@pytest.mark.django_db(transaction=True)
def test_renaming_a_source_or_a_tag_reaches_every_cached_card(settings, clock):
    client = Client()
    source = make_source(name="Lumen Lab")
    item = make_item(title="Story", source=source, tags=["量化"])
    api = ["/api/v1/items/", f"/api/v1/items/{item.pk}/", "/api/v1/sources/", "/api/v1/tags/"]
    for url in ["/", *api]:
        client.get(url)

    source.name = "Lumen Research"
    source.save()
    tag = item.tags.get()
    tag.name = "模型量化"
    tag.save()
    html = client.get("/").text
    answers = {url: client.get(url).text for url in api}

    assert "Lumen Research" in html and "Lumen Lab" not in html
    assert ">模型量化</a>" in html
    for url, text in answers.items():
        assert "Lumen Lab" not in text and '"name":"量化"' not in text, url
    assert '"name":"模型量化"' in answers["/api/v1/tags/"]
    assert '"name":"Lumen Research"' in answers["/api/v1/sources/"]


@pytest.mark.django_db
def test_a_warm_page_is_the_same_page_without_rendering(client, clock):
    make_item(title="Story")
    first = client.get("/")

    again = client.get("/")

    assert again.content == first.content
    assert again["ETag"] == first["ETag"]


@pytest.mark.django_db
def test_pages_are_sent_gzipped_to_clients_that_accept_it(client, clock):
    make_item(title="Story")
    plain = client.get("/")

    packed = client.get("/", headers={"accept-encoding": "gzip, br"})

    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert packed["ETag"] == plain["ETag"]
    assert "Accept-Encoding" in packed["Vary"]
    assert "Content-Encoding" not in client.get("/", headers={"accept-encoding": "gzip;q=0"})


@pytest.mark.django_db
def test_anonymous_and_logged_in_readers_get_no_cookie_and_no_vary_cookie(client, clock):
    make_item(title="Story")
    anonymous = client.get("/")
    client.force_login(make_user())

    logged_in = client.get("/tags/")

    for response in (anonymous, logged_in):
        assert not response.cookies
        assert "Cookie" not in response["Vary"]
        assert "csrfmiddlewaretoken" not in response.text


@pytest.mark.django_db
def test_logged_in_forms_still_need_their_csrf_token(clock):
    chief = make_user(is_superuser=True, is_staff=True)
    item = make_item(title="Story", status="draft")
    client = Client(enforce_csrf_checks=True)
    client.force_login(chief)
    url = f"/admin/feed/item/{item.pk}/delete/"

    refused = client.post(url, {"post": "yes"})
    token = client.get(url).cookies["csrftoken"].value
    accepted = client.post(url, {"post": "yes", "csrfmiddlewaretoken": token})

    assert refused.status_code == 403
    assert accepted.status_code == 302
    assert client.post("/i18n/setlang/", {"language": "en", "next": "/"}).status_code == 403


@pytest.mark.django_db
def test_the_short_item_address_redirects_to_the_canonical_one(client, clock):
    item = make_item(title="Quantum ring all-reduce")
    draft = make_item(title="Secret", status="draft")

    response = client.get(f"/items/{item.pk}/")

    assert response.status_code == 301
    assert response["Location"] == f"/items/{item.pk}/quantum-ring-all-reduce/"
    assert client.get(f"/en/items/{item.pk}/")["Location"] == (
        f"/en/items/{item.pk}/quantum-ring-all-reduce/"
    )
    assert client.get(f"/items/{draft.pk}/").status_code == 404


def test_a_burst_after_a_change_renders_the_page_once(monkeypatch, settings):
    settings.CACHES = {"default": CACHES["locmem"]}
    cache.clear()
    state = Freshness(value=7, changed_at=_moment(), next_publish_at=None)
    monkeypatch.setattr(conditional, "generation_current_with", lambda key: (state, cache.get(key)))
    renders = []
    start = threading.Barrier(8)

    @conditional.public_cache
    def view(request):
        renders.append(1)
        # Rendering takes a while: the others arrive meanwhile.
        time.sleep(0.2)
        return HttpResponse("page")

    results = []

    def reader():
        start.wait()
        results.append(view(RequestFactory().get("/")).content)

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(renders) == 1
    assert results == [b"page"] * 8
    cache.clear()


def _moment():
    import datetime

    return datetime.datetime(2026, 6, 20, 4, 0, tzinfo=datetime.UTC)
