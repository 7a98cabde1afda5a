"""Validators from the publish generation: ETag and Last-Modified move on any change; cheap 304s."""

import datetime

import pytest
from django.utils.http import http_date, parse_http_date

from editorial.edits import item_edit
from editorial.workflow import item_publish, item_reject
from feed import freshness
from feed.freshness import generation_in_cache
from tests.factories import make_item, make_user

pytestmark = pytest.mark.django_db

# The stream's surfaces in both languages: its pages and indexes, its feeds, the sitemap.
PAGES = [
    "/",
    "/?tag=量化&kind=paper",
    "/days/2026-06-20/",
    "/tags/",
    "/sources/",
    "/feed.xml",
    "/feed.atom",
    "/feed.json?featured=1",
    "/sitemap.xml",
    "/sitemap-items-2026-06.xml",
    "/en/",
    "/en/feed.xml",
]
# Reading the generation: a cache read with a shared cache, else one primary-key query.
GENERATION_QUERIES = 0 if generation_in_cache() else 1


@pytest.fixture
def story(clock):
    return make_item(title="A story", kind="paper", tags=["量化"])


@pytest.fixture
def chief():
    return make_user(is_superuser=True, is_staff=True)


@pytest.mark.parametrize("url", PAGES)
def test_pages_and_feeds_send_validators_and_may_be_held_by_a_shared_cache(client, story, url):
    response = client.get(url)

    assert response.status_code == 200
    assert response["ETag"].startswith('W/"') and len(response["ETag"]) == 36
    assert response["Last-Modified"] == http_date(
        freshness.generation_current().changed_at.timestamp()
    )
    assert response["Cache-Control"] == "public, max-age=60"
    assert response["Vary"] == "Accept-Encoding"
    assert not response.cookies


@pytest.mark.parametrize("url", PAGES)
def test_a_current_copy_gets_a_304_for_at_most_one_query(
    client, story, url, django_assert_num_queries
):
    etag = client.get(url)["ETag"]

    with django_assert_num_queries(GENERATION_QUERIES):
        response = client.get(url, headers={"if-none-match": etag})

    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@pytest.mark.parametrize("url", PAGES)
def test_with_no_cache_a_current_etag_gets_its_304_from_the_generation_alone(
    client, story, url, settings, django_assert_num_queries
):
    cached_304 = client.get(url, headers={"if-none-match": client.get(url)["ETag"]})
    settings.CACHES = NO_CACHE
    etag = client.get(url)["ETag"]

    # The generation's row, and nothing rendered (no items, tags or sources read).
    with django_assert_num_queries(1):
        response = client.get(url, headers={"if-none-match": etag})

    assert_same_304(response, cached_304, etag=etag)


def assert_same_304(response, cached_304, *, etag: str) -> None:
    """An empty 304 for `etag`, with the headers of the 304 a stored page gives (Date aside)."""

    def headers(answer) -> dict:
        return {name: value for name, value in answer.headers.items() if name != "Date"}

    assert response.status_code == 304
    assert response.content == b""
    assert etag == cached_304["ETag"]
    assert headers(response) == headers(cached_304)


def test_with_no_cache_if_modified_since_alone_still_lets_the_view_answer_404(
    client, story, settings
):
    settings.CACHES = NO_CACHE
    last_modified = client.get("/")["Last-Modified"]

    found = client.get("/", headers={"if-modified-since": last_modified})
    missing = client.get(
        f"/items/{story.pk + 1}/no-such-item/", headers={"if-modified-since": last_modified}
    )

    assert found.status_code == 304
    assert missing.status_code == 404


def test_with_no_cache_an_old_etag_gets_the_new_page(client, story, chief, clock, settings):
    settings.CACHES = NO_CACHE
    etag = client.get("/")["ETag"]
    _publish(chief=chief, clock=clock)

    response = client.get("/", headers={"if-none-match": etag})

    assert response.status_code == 200
    assert "Fresh story" in response.text
    assert response["ETag"] != etag


def test_if_modified_since_alone_gets_a_304(client, story):
    last_modified = client.get("/feed.xml")["Last-Modified"]

    response = client.get("/feed.xml", headers={"if-modified-since": last_modified})

    assert response.status_code == 304


def _publish(*, chief, clock):
    draft = make_item(title="Fresh story", status="draft", tags=["量化"], kind="paper")
    item_publish(item=draft, by=chief, at=clock.now - datetime.timedelta(minutes=1))


def _reject(*, story, chief, clock):
    item_reject(item=story, by=chief, reason="Off topic.")


def _edit(*, story, chief, clock):
    item_edit(
        item=story, by=chief, changes={"title": "A better title"}, expected_version=story.version
    )


def _delete(*, story, chief, clock):
    story.delete()


CHANGES = {"publish": _publish, "reject": _reject, "edit": _edit, "delete": _delete}


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize("change", CHANGES)
def test_every_change_moves_both_validators_on_every_surface(
    client, story, chief, clock, url, change
):
    first = client.get(url)
    kwargs = {"chief": chief, "clock": clock}
    if change != "publish":
        kwargs["story"] = story

    CHANGES[change](**kwargs)
    by_date = client.get(url, headers={"if-modified-since": first["Last-Modified"]})
    by_etag = client.get(url, headers={"if-none-match": first["ETag"]})

    # Within the same second as the first answer: Last-Modified still moves.
    assert by_date.status_code == 200
    assert by_etag.status_code == 200
    assert parse_http_date(by_date["Last-Modified"]) > parse_http_date(first["Last-Modified"])
    assert by_etag["ETag"] != first["ETag"]
    # …and the new copy is current again.
    assert client.get(url, headers={"if-none-match": by_etag["ETag"]}).status_code == 304


def test_a_change_shows_in_the_page_sent(client, story, chief, clock):
    client.get("/")

    _edit(story=story, chief=chief, clock=clock)

    assert "A better title" in client.get("/").text


def test_a_scheduled_item_coming_due_moves_the_validators_without_any_write(client, story, clock):
    make_item(title="Due at one", published_at=clock.now + datetime.timedelta(hours=1))
    first = client.get("/")

    clock.move(datetime.timedelta(hours=2))
    response = client.get("/", headers={"if-none-match": first["ETag"]})

    assert response.status_code == 200
    assert "Due at one" in response.text
    # The page changed when the item came due, not when someone next asked.
    assert response["Last-Modified"] == http_date(
        (clock.now - datetime.timedelta(hours=1)).timestamp()
    )


def test_the_etag_differs_by_language_and_by_filter(client, story):
    chinese = client.get("/")["ETag"]
    english = client.get("/en/")["ETag"]
    filtered = client.get("/?kind=paper")["ETag"]

    assert len({chinese, english, filtered}) == 3


def test_a_bad_filter_is_a_400_even_to_a_client_claiming_a_current_copy(client, story):
    last_modified = client.get("/")["Last-Modified"]

    response = client.get("/?kind=podcast", headers={"if-modified-since": last_modified})

    assert response.status_code == 400
    assert not response.has_header("ETag")


def test_a_removed_item_is_a_404_even_to_a_client_holding_its_page(client, story, chief, clock):
    url = story.get_absolute_url()
    first = client.get(url)

    _reject(story=story, chief=chief, clock=clock)

    assert client.get(url, headers={"if-none-match": first["ETag"]}).status_code == 404
    assert client.get(url, headers={"if-modified-since": first["Last-Modified"]}).status_code == 404


def test_an_unknown_item_is_a_404_whatever_the_client_claims(client, story):
    far_future = http_date(4102444800)

    response = client.get("/items/999999/x/", headers={"if-modified-since": far_future})

    assert response.status_code == 404
