"""Anonymous API reads come from the page cache; callers with a token never do; all are counted."""

import copy

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from feed import freshness
from feed.freshness import generation_in_cache
from feed.models import Item
from tests.factories import make_item, make_source, make_user
from tests.feed.test_conditional import assert_same_304
from tests.feed.test_page_cache import CACHES  # locmem, and the suite's Redis (else database 2)

pytestmark = pytest.mark.django_db

G = 0 if generation_in_cache() else 1


@pytest.fixture(params=list(CACHES))
def backend(request, settings):
    """The cache the answers go to: per process (locmem) or shared (Redis)."""
    settings.CACHES = {"default": CACHES[request.param]}
    cache.clear()
    yield request.param
    cache.clear()


def _landed():
    freshness.generation_current()  # the writes' bump lands first, as after a commit


def _titles(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["title"] for item in response.json()["results"]]


def test_a_warm_anonymous_list_is_the_stored_answer_and_costs_no_query_beyond_the_generation(
    api, backend, django_assert_num_queries
):
    item = make_item(title="Stored title")
    _landed()
    first = api.get("/api/v1/items/")
    # A write that bypasses every bump: only a cached answer can still show the old title.
    Item.objects.filter(pk=item.pk).update(title="Changed behind the cache's back")

    # Shared cache: the generation and the answer in one read; per process: the generation's row.
    expected = 0 if backend == "redis" else 1
    with django_assert_num_queries(expected):
        again = api.get("/api/v1/items/")

    assert _titles(again) == ["Stored title"]
    assert again.content == first.content
    assert dict(again.headers) == dict(first.headers)
    assert again["Cache-Control"] == "public, max-age=60"
    assert again["Vary"] == "Accept, Accept-Encoding, Authorization, Cookie, Accept-Language"


def test_anonymous_sources_tags_days_and_an_item_are_cached_too(api, django_assert_num_queries):
    item = make_item(title="Story", tags=["量化"])
    _landed()
    paths = ["/api/v1/sources/", "/api/v1/tags/", "/api/v1/days/", f"/api/v1/items/{item.pk}/"]
    first = {path: api.get(path).json() for path in paths}

    with django_assert_num_queries(G * len(paths)):
        again = {path: api.get(path).json() for path in paths}

    assert again == first
    assert first[f"/api/v1/items/{item.pk}/"]["title"] == "Story"
    assert first["/api/v1/tags/"] == [{"slug": "量化", "name": "量化", "count": 1}]


def test_a_caller_with_a_token_is_never_served_from_the_cache_nor_stored_in_it(
    api, token_client, backend
):
    published = make_item(title="Published story")
    draft = make_item(title="A draft", status="draft", published_at=None)
    editor = token_client(make_user(perms=["feed.view_item"]))
    _landed()
    assert _titles(api.get("/api/v1/items/")) == ["Published story"]
    assert api.get(f"/api/v1/items/{draft.pk}/").status_code == 404
    Item.objects.filter(pk=published.pk).update(title="Retitled without a bump")

    as_editor = editor.get("/api/v1/items/")
    editor_draft = editor.get(f"/api/v1/items/{draft.pk}/")

    # The editor reads the database: the new title, and the draft they may see.
    assert _titles(as_editor) == ["Retitled without a bump"]
    assert editor_draft.status_code == 200 and editor_draft.json()["status"] == "draft"
    assert "ETag" not in as_editor and as_editor["Cache-Control"] == "private"
    # …and nothing they read was stored for anonymous callers.
    assert _titles(api.get("/api/v1/items/")) == ["Published story"]
    assert api.get(f"/api/v1/items/{draft.pk}/").status_code == 404


def test_a_wrong_token_is_refused_even_when_the_anonymous_answer_is_cached(api):
    make_item(title="Story")
    _landed()
    api.get("/api/v1/items/")
    wrong = APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION="Token not-a-real-token")

    assert wrong.get("/api/v1/items/").status_code == 401


def test_a_current_copy_gets_a_304_and_a_publish_gets_the_new_list(api, clock):
    chief = make_user(is_superuser=True, is_staff=True)
    make_item(title="First story")
    draft = make_item(title="Second story", status="draft", published_at=None)
    _landed()
    first = api.get("/api/v1/items/")

    not_modified = api.get("/api/v1/items/", HTTP_IF_NONE_MATCH=first["ETag"])
    from editorial.workflow import item_publish

    item_publish(item=draft, by=chief)
    after = api.get("/api/v1/items/", HTTP_IF_NONE_MATCH=first["ETag"])

    assert not_modified.status_code == 304
    assert not_modified.content == b""
    assert not_modified["ETag"] == first["ETag"]
    assert after.status_code == 200
    assert after["ETag"] != first["ETag"]
    assert _titles(after) == ["Second story", "First story"]


@pytest.mark.parametrize("path", ["items/", "items/{pk}/", "sources/", "tags/", "days/"])
def test_with_no_cache_a_current_etag_gets_its_304_from_the_generation_alone(
    api, path, settings, django_assert_num_queries
):
    path = "/api/v1/" + path.format(pk=make_item(title="Story", tags=["量化"]).pk)
    _landed()
    cached_304 = api.get(path, HTTP_IF_NONE_MATCH=api.get(path)["ETag"])
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    etag = api.get(path)["ETag"]

    # The generation's row; the rates are counted in the (dummy) cache; nothing rendered.
    with django_assert_num_queries(1):
        response = api.get(path, HTTP_IF_NONE_MATCH=etag)

    assert_same_304(response, cached_304, etag=etag)


def test_cursor_pages_filters_and_languages_each_have_their_own_answer(api, clock):
    import datetime

    for n in range(3):
        make_item(
            title=f"Paper {n}",
            kind="paper",
            published_at=clock.now - datetime.timedelta(hours=n + 1),
        )
    make_item(
        title="A blog post", kind="blog", published_at=clock.now - datetime.timedelta(hours=9)
    )
    _landed()

    first_page = api.get("/api/v1/items/?page_size=2")
    second_page = api.get(first_page.json()["next"])
    papers = api.get("/api/v1/items/?kind=paper")
    refused = api.get("/api/v1/items/?kind=poem")
    chinese = APIClient(HTTP_ACCEPT_LANGUAGE="zh-hans").get("/api/v1/items/?kind=poem")

    assert _titles(first_page) == ["Paper 0", "Paper 1"]
    assert _titles(second_page) == ["Paper 2", "A blog post"]
    assert _titles(api.get("/api/v1/items/?page_size=2")) == ["Paper 0", "Paper 1"]
    assert _titles(papers) == ["Paper 0", "Paper 1", "Paper 2"]
    assert refused.status_code == chinese.status_code == 400
    assert refused.json()["message"] != chinese.json()["message"]


@pytest.fixture
def rates(settings):
    def set_rates(*, anon: str, user: str = "1000/min"):
        config = copy.deepcopy(settings.REST_FRAMEWORK)
        config["DEFAULT_THROTTLE_RATES"] = {"anon": anon, "user": user}
        settings.REST_FRAMEWORK = config

    return set_rates


def test_cached_answers_count_against_the_anonymous_rate_once_each(api, rates, backend):
    rates(anon="3/min")
    make_item(title="Story")
    _landed()

    statuses = [api.get("/api/v1/items/").status_code for _ in range(4)]
    refused = api.get("/api/v1/items/")

    # One render, then cached answers: every one of them counted, none twice.
    assert statuses == [200, 200, 200, 429]
    assert refused.json()["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_the_rate_is_per_caller_for_cached_answers_too(api, rates):
    rates(anon="1/min")
    make_item(title="Story")
    _landed()

    mine = [api.get("/api/v1/items/").status_code for _ in range(2)]
    other = api.get("/api/v1/items/", REMOTE_ADDR="198.51.100.9").status_code

    assert mine == [200, 429]
    assert other == 200


def test_sources_an_anonymous_caller_reads_follow_a_rename(api):
    source = make_source(name="Lumen Lab", slug="lumen")
    _landed()
    assert [s["name"] for s in api.get("/api/v1/sources/").json()["results"]] == ["Lumen Lab"]

    source.name = "Lumen Research"
    source.save()

    assert [s["name"] for s in api.get("/api/v1/sources/").json()["results"]] == ["Lumen Research"]
