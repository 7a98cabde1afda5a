"""ETag / Last-Modified on pages and feeds, and 304 for a reader whose copy is current."""

import datetime

import pytest

from feed.models import Item
from tests.factories import make_item

pytestmark = pytest.mark.django_db

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
    "/sitemap-items.xml",
]


@pytest.fixture
def story(clock):
    return make_item(title="A story", kind="paper", tags=["量化"])


@pytest.mark.parametrize("url", PAGES)
def test_pages_and_feeds_send_validators_and_ask_to_be_revalidated(client, story, url):
    response = client.get(url)

    assert response.status_code == 200
    assert response["ETag"].startswith('"') and len(response["ETag"]) == 34
    assert (
        response["Last-Modified"] == "Sat, 20 Jun 2026 04:00:00 GMT"
    )  # noon in Shanghai: its edit
    assert "no-cache" in response["Cache-Control"]
    assert {"Cookie", "Accept-Language"} <= {v.strip() for v in response["Vary"].split(",")}


@pytest.mark.parametrize("url", PAGES)
def test_a_current_copy_gets_a_304_for_one_query(client, story, url, django_assert_max_num_queries):
    etag = client.get(url)["ETag"]

    with django_assert_max_num_queries(1):
        response = client.get(url, headers={"if-none-match": etag})

    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


def test_if_modified_since_alone_gets_a_304(client, story):
    last_modified = client.get("/feed.xml")["Last-Modified"]

    response = client.get("/feed.xml", headers={"if-modified-since": last_modified})

    assert response.status_code == 304


def test_an_item_page_answers_304_too(client, story):
    etag = client.get(story.get_absolute_url())["ETag"]

    assert client.get(story.get_absolute_url(), headers={"if-none-match": etag}).status_code == 304


def _etag_after(client, change) -> tuple[str, str]:
    before = client.get("/")["ETag"]
    change()
    response = client.get("/", headers={"if-none-match": before})
    return before, response


def test_publishing_an_item_changes_the_etag(client, story, clock):
    def publish():
        clock.move(datetime.timedelta(minutes=5))
        make_item(title="Fresh story")

    before, response = _etag_after(client, publish)

    assert response.status_code == 200
    assert response["ETag"] != before
    assert "Fresh story" in response.text


def test_editing_an_item_changes_the_etag(client, story, clock):
    def edit():
        clock.move(datetime.timedelta(minutes=5))
        story.title = "A better title"
        story.save()

    _, response = _etag_after(client, edit)

    assert response.status_code == 200
    assert "A better title" in response.text


def test_a_status_change_by_bare_update_still_changes_the_etag(client, story):
    # Workflow transitions are conditional UPDATEs, which leave updated_at alone.
    _, response = _etag_after(
        client, lambda: Item.objects.filter(pk=story.pk).update(status="featured")
    )

    assert response.status_code == 200
    assert "精选" in response.text


def test_unpublishing_an_item_changes_the_etag(client, story):
    make_item(title="Another story")

    _, response = _etag_after(
        client, lambda: Item.objects.filter(pk=story.pk).update(status="rejected")
    )

    assert response.status_code == 200
    assert "A story" not in response.text


def test_a_scheduled_item_coming_due_changes_the_etag(client, story, clock):
    make_item(title="Due at one", published_at=clock.now + datetime.timedelta(hours=1))

    _, response = _etag_after(client, lambda: clock.move(datetime.timedelta(hours=2)))

    assert response.status_code == 200
    assert "Due at one" in response.text


def test_the_etag_differs_by_language_and_by_filter(client, story):
    chinese = client.get("/")["ETag"]
    english = client.get("/", headers={"accept-language": "en"})["ETag"]
    filtered = client.get("/?kind=paper")["ETag"]

    assert len({chinese, english, filtered}) == 3


def test_error_pages_carry_no_validators(client, story):
    response = client.get("/?kind=podcast")

    assert response.status_code == 400
    assert not response.has_header("ETag")
