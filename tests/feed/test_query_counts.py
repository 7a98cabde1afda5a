"""Every public page runs a fixed number of SQL queries, whether it shows 5 items or 50."""

import datetime
import re

import pytest

from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

# The query count of each public page (also listed in README's "Public site").
QUERIES = {
    # validators, publish times of the page, cards, their tags, their stories' sources, facets
    "/": 6,
    # …plus the names of the active tags and of the active source for the chips
    "/?tag=共同&source=src-0&kind=paper": 8,
    # validators, cards, their tags, their stories' sources, older day, newer day, facets
    "/days/2026-06-18/": 7,
    # validators, the item, its tags, its story's sources, tag weights, related items
    "item": 6,
    # validators, items, their tags
    "/feed.xml": 3,
    "/feed.atom": 3,
    "/feed.json": 3,
    # …plus the names for the title
    "/feed.xml?tag=共同": 4,
    # validators, tags with counts
    "/tags/": 2,
    # validators, sources with counts
    "/sources/": 2,
    # validators, item count (for the index's pages)
    "/sitemap.xml": 2,
    # validators, item count, items
    "/sitemap-items.xml": 3,
}


@pytest.fixture(params=[5, 50], ids=["5-items", "50-items"])
def stream_of(request, clock):
    """`n` visible items over five days, each with its own source and two tags."""
    count = request.param
    for n in range(count):
        make_item(
            source=make_source(slug=f"src-{n}", kind="paper"),
            kind="paper",
            published_at=datetime.datetime(2026, 6, 15 + n % 5, 8, n % 60, tzinfo=SHANGHAI),
            tags=[f"tag{n % 7}", "共同"],
            status="featured" if n % 3 == 0 else "published",
        )
    return count


@pytest.mark.parametrize("url", [url for url in QUERIES if url != "item"])
def test_each_public_page_runs_a_fixed_number_of_queries(
    client, stream_of, url, django_assert_max_num_queries
):
    with django_assert_max_num_queries(QUERIES[url]):
        response = client.get(url)

    assert response.status_code == 200


def test_the_stream_shows_every_item_it_was_counted_with(client, stream_of):
    html = client.get("/").text

    assert len(re.findall(r'class="item-title"', html)) == stream_of


def test_the_item_page_runs_a_fixed_number_of_queries(
    client, stream_of, django_assert_max_num_queries
):
    item = Item.objects.visible().first()

    with django_assert_max_num_queries(QUERIES["item"]):
        response = client.get(item.get_absolute_url())

    assert response.status_code == 200
    # Related items (sharing 共同) are shown, and cost no query each.
    assert response.text.count('<li>\n      <a href="/items/') == min(stream_of - 1, 6)
