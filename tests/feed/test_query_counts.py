"""Every public page runs a fixed number of SQL queries for 5 items or 60; a cached one none."""

import datetime
import re

import pytest

from feed import freshness
from feed.freshness import generation_in_cache
from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

# Reading the generation: a cache read with a shared cache, else one primary-key query.
G = 0 if generation_in_cache() else 1
# The query count of each public page rendered afresh (also listed in README's "Public site").
QUERIES = {
    # cards, their tags, their stories' sources (the tags beside them are the cards')
    "/": G + 3,
    # …plus the ids of the active tags (the chips' names are the first card's)
    "/?tag=共同&source=src-0&kind=paper": G + 4,
    # no card (so neither tags nor stories to read), the tags' ids, their names, the source's
    "/?tag=共同&source=src-0&kind=tweet": G + 4,
    # cards, their tags, their stories' sources, the older and newer days (one query)
    "/days/2026-06-18/": G + 4,
    # the same with filters: the tags' ids too
    "/days/2026-06-18/?tag=共同&kind=paper": G + 5,
    # and with no card for the chips: the tags' names (an unknown tag: nothing to look for)
    "/days/2026-06-18/?tag=共同&kind=tweet": G + 4,
    "/days/2026-06-18/?tag=nope": G + 2,
    # the item, its tags, its story's sources, tag weights, related items
    "item": G + 5,
    # items, their tags
    "/feed.xml": G + 2,
    "/feed.atom": G + 2,
    "/feed.json": G + 2,
    # …plus the tag's id (the title's name is the first entry's)
    "/feed.xml?tag=共同": G + 3,
    # tags with counts
    "/tags/": G + 1,
    # sources with counts
    "/sources/": G + 1,
    # the newest and the oldest publish time
    "/sitemap.xml": G + 2,
    # one month's items
    "/sitemap-items-2026-06.xml": G + 1,
}


@pytest.fixture(params=[5, 60], ids=["5-items", "60-items"])
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
    # The writes' bump lands before the first reader, as after a commit.
    freshness.generation_current()
    return count


@pytest.mark.parametrize("url", [url for url in QUERIES if url != "item"])
def test_each_public_page_runs_a_fixed_number_of_queries(
    client, stream_of, url, django_assert_num_queries
):
    with django_assert_num_queries(QUERIES[url]):
        response = client.get(url)

    assert response.status_code == 200


@pytest.mark.parametrize("url", [url for url in QUERIES if url != "item"])
def test_a_cached_page_runs_no_query_beyond_the_generation(
    client, stream_of, url, django_assert_num_queries
):
    first = client.get(url)

    with django_assert_num_queries(G):
        again = client.get(url)

    assert again.content == first.content


def test_the_stream_shows_at_most_a_page_of_cards(client, stream_of, settings):
    html = client.get("/").text

    assert len(re.findall(r'class="item-title"', html)) == min(
        stream_of, settings.AITOP_STREAM_PAGE_ITEMS
    )


def test_the_item_page_runs_a_fixed_number_of_queries(client, stream_of, django_assert_num_queries):
    item = Item.objects.visible().first()

    with django_assert_num_queries(QUERIES["item"]):
        response = client.get(item.get_absolute_url())

    assert response.status_code == 200
    # Related items (sharing 共同) are shown, and cost no query each.
    assert response.text.count('<li>\n      <a href="/items/') == min(stream_of - 1, 6)


def test_a_stream_page_of_fifty_cards_is_under_60_kb(client, clock):
    source = make_source(name="A lab with a long enough name", kind="blog")
    for n in range(55):
        make_item(
            source=source,
            # A headline, two sentences of summary and a "why" as long as the desk writes them.
            title=f"Lumen-{n}：开源推理模型在长上下文评测中超过同级闭源模型",
            summary="研究团队发布了新的开源模型，在多个长上下文基准上取得领先。"
            "模型权重与训练细节一并公开，便于复现。",
            recommendation="开源社区少见的长上下文强模型。",
            tags=["大模型", "开源", "推理"],
            category="model",
            heat=90,
            # Stored to the microsecond, as the desk's clock writes it.
            published_at=clock.now - datetime.timedelta(minutes=n + 1, microseconds=123_456),
        )

    html = client.get("/").content

    assert html.count(b'class="item-title"') == 50
    assert len(html) < 60_000
