"""Nothing unpublished reaches a reader: drafts, rejected and scheduled items, everywhere."""

import datetime
import json

import pytest

from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

TODAY = "2026-06-20"


@pytest.fixture
def hidden(clock):
    """One visible item, and three hidden ones sharing its source, tag and words."""
    source = make_source(name="Shared source", slug="shared")
    public = make_item(
        title="Public story 训练", source=source, tags=["共同"], status="featured", heat=50
    )
    hidden = [
        make_item(title="Hidden draft 训练", source=source, tags=["共同", "秘密"], status="draft"),
        make_item(
            title="Hidden rejected 训练", source=source, tags=["共同", "秘密"], status="rejected"
        ),
        make_item(
            title="Hidden scheduled 训练",
            source=source,
            tags=["共同", "秘密"],
            status="featured",
            # Later today: the same day as the public one, but not yet due.
            published_at=datetime.datetime(2026, 6, 20, 18, tzinfo=SHANGHAI),
        ),
    ]
    return public, hidden


PUBLIC_URLS = [
    "/",
    "/?tag=共同",
    "/?tag=秘密",
    "/?source=shared",
    "/?featured=1",
    "/?q=训练",
    f"/days/{TODAY}/",
    f"/days/{TODAY}/?tag=共同",
    "/tags/",
    "/sources/",
    "/feed.xml",
    "/feed.atom",
    "/feed.json",
    "/feed.xml?tag=秘密",
    "/feed.json?q=训练",
    "/sitemap.xml",
    "/sitemap-items-2026-06.xml",
]


@pytest.mark.parametrize("url", PUBLIC_URLS)
def test_hidden_items_never_appear_on_a_public_page(client, hidden, url):
    _, invisible = hidden

    response = client.get(url)

    assert response.status_code == 200
    body = response.content.decode()
    for item in invisible:
        assert item.title not in body
        assert f"/items/{item.pk}/" not in body
    # The tag only hidden items carry is nowhere, unless the reader typed it.
    if "秘密" not in url:
        assert "秘密" not in body


def test_hidden_items_are_not_counted_in_facets_or_indexes(client, hidden):
    stream = client.get("/").text
    tags = client.get("/tags/").text
    sources = client.get("/sources/").text

    assert '<span class="facet-name">共同</span> <span class="facet-count">1</span>' in stream
    assert '<span class="facet-name">共同</span> <span class="facet-count">1</span>' in tags
    assert '<td class="num">1</td>' in sources


def test_a_hidden_tag_filter_shows_nothing_but_keeps_its_chip(client, hidden):
    html = client.get("/?tag=秘密").text

    assert "没有符合条件的内容。" in html
    assert '<a class="chip-remove" href="/"' in html


@pytest.mark.parametrize("which", [0, 1, 2])
def test_a_hidden_item_page_and_its_outbound_link_are_404(client, hidden, which):
    item = hidden[1][which]

    assert client.get(f"/items/{item.pk}/{item.slug}/").status_code == 404
    assert client.get(f"/go/{item.pk}/").status_code == 404
    item.refresh_from_db()
    assert item.clicks == 0


def test_a_hidden_item_is_not_related_to_a_public_one(client, hidden):
    public, _ = hidden

    html = client.get(public.get_absolute_url()).text

    assert "Hidden" not in html


def test_the_json_feed_carries_only_the_public_item(client, hidden):
    items = json.loads(client.get("/feed.json?tag=共同").content)["items"]

    assert [item["title"] for item in items] == ["Public story 训练"]


def test_a_scheduled_item_appears_everywhere_once_its_time_comes(client, hidden, clock):
    clock.move(datetime.timedelta(hours=7))

    assert "Hidden scheduled" in client.get("/").text
    assert "Hidden scheduled" in client.get("/feed.xml").text
    assert "Hidden draft" not in client.get("/").text
