"""Stories on the public site: one card per story, its sources unfolding, hot order, related."""

import datetime
import re

import pytest
from django.utils import timezone

from feed import freshness
from stories.membership import item_match
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source
from tests.feed.test_query_counts import QUERIES

pytestmark = pytest.mark.django_db


def at(hour: int) -> datetime.datetime:
    return datetime.datetime(2026, 6, 19, hour, tzinfo=SHANGHAI)


def card_titles(html: str) -> list[str]:
    return re.findall(r'<h3 class="item-title"><a [^>]*>(.*?)</a></h3>', html)


def coverage(html: str) -> list[str]:
    block = re.findall(r'<details class="coverage">(.*?)</details>', html, re.S)
    return [
        re.sub(r"<[^>]+>", "", li).strip()
        for b in block
        for li in re.findall(r"<li>.*?</li>", b, re.S)
    ]


@pytest.fixture
def story(clock):
    """One launch told by three sources (the lab's the heaviest) and a draft from a fourth."""
    lab = make_source(name="Anthropic News", weight=90)
    wire = make_source(name="Wire", weight=50)
    zh = make_source(name="机器之心", weight=60)
    items = [
        make_item(source=wire, title="Anthropic launches Claude Opus 4.5", published_at=at(9)),
        make_item(source=lab, title="Introducing Claude Opus 4.5", published_at=at(8)),
        make_item(source=zh, title="Anthropic 发布 Claude Opus 4.5", published_at=at(10)),
        make_item(source=make_source(name="Drafty"), title="Claude Opus 4.5 draft", status="draft"),
    ]
    for item in items:
        item_match(item=item)
    return items


def test_the_stream_shows_a_story_once_by_its_lead_with_every_other_source_unfolding(client, story):
    make_item(title="Something else", published_at=at(7))

    html = client.get("/").text

    assert card_titles(html) == ["Introducing Claude Opus 4.5", "Something else"]
    assert "Also covered by 2 sources" in client.get("/en/").text
    assert "另有 2 个来源报道" in html
    assert coverage(html) == [
        "机器之心: Anthropic 发布 Claude Opus 4.5",
        "Wire: Anthropic launches Claude Opus 4.5",
    ]
    assert "draft" not in html


def test_a_source_filter_shows_that_sources_item_for_the_story(client, story):
    html = client.get(f"/?source={story[0].source.slug}").text

    assert card_titles(html) == ["Anthropic launches Claude Opus 4.5"]


def test_the_item_page_lists_the_storys_other_sources_and_puts_them_first_in_related(client, story):
    lead = story[1]
    make_item(title="Shares a tag", tags=["claude"], published_at=at(6))
    lead.tags.set(["claude"])

    html = client.get(lead.get_absolute_url()).text

    assert coverage(html) == [
        "机器之心: Anthropic 发布 Claude Opus 4.5",
        "Wire: Anthropic launches Claude Opus 4.5",
    ]
    related = re.findall(r'<ul class="related-list">(.*?)</ul>', html, re.S)[0]
    assert re.findall(r'<a href="[^"]+">(.*?)</a>', related) == [
        "Anthropic 发布 Claude Opus 4.5",
        "Anthropic launches Claude Opus 4.5",
        "Shares a tag",
    ]
    # The story's members carry their publish times (in the site's zone) and sources.
    assert re.findall(r'<time datetime="([^"]+)">', related)[:2] == [
        timezone.localtime(story[2].published_at).isoformat(timespec="seconds"),
        timezone.localtime(story[0].published_at).isoformat(timespec="seconds"),
    ]
    assert re.findall(r'<span class="muted">([^<]+?) ·', related)[:2] == ["机器之心", "Wire"]


def test_story_and_related_links_show_a_chinese_title_s_address_as_characters(client, story):
    # As the card's own title link does: a third of the bytes, and what a reader sees anyway.
    lead, chinese = story[1], story[2]
    readable = f"/items/{chinese.pk}/anthropic-发布-claude-opus-45/"

    stream = client.get("/").text
    page = client.get(lead.get_absolute_url()).text

    assert f'<a href="{readable}">Anthropic 发布 Claude Opus 4.5</a>' in stream
    assert f'<a href="{readable}">Anthropic 发布 Claude Opus 4.5</a>' in page
    related = re.findall(r'<ul class="related-list">(.*?)</ul>', page, re.S)[0]
    assert f'<a href="{readable}">' in related
    assert "%E5" not in stream + page
    assert client.get(readable).status_code == 200


def test_related_items_weigh_rare_tags_over_common_ones(client, clock):
    item = make_item(title="Subject", tags=["common", "rare"])
    for n in range(5):
        make_item(title=f"Common {n}", tags=["common"], published_at=at(12 + n))
    make_item(title="Rare one", tags=["rare"], published_at=at(1))

    html = client.get(item.get_absolute_url()).text

    related = re.findall(r'<ul class="related-list">(.*?)</ul>', html, re.S)[0]
    assert re.findall(r'<a href="[^"]+">(.*?)</a>', related)[0] == "Rare one"


def test_sort_hot_orders_each_day_hottest_first_and_days_stay_newest_first(client, clock):
    make_item(title="Cool late", heat=10, published_at=at(20))
    make_item(title="Hot early", heat=90, published_at=at(6))
    make_item(title="Yesterday hot", heat=99, published_at=at(6) - datetime.timedelta(days=1))

    assert card_titles(client.get("/?sort=hot").text) == ["Hot early", "Cool late", "Yesterday hot"]
    assert card_titles(client.get("/").text) == ["Cool late", "Hot early", "Yesterday hot"]


def test_an_unknown_sort_is_a_400_naming_it(client, clock):
    response = client.get("/?sort=loud")

    assert response.status_code == 400
    assert "sort" in response.text


def test_the_stream_with_stories_runs_the_same_queries_for_one_or_many_stories(
    client, clock, django_assert_max_num_queries
):
    for n in range(15):
        one = make_item(title=f"Launch of Model-{n}X", published_at=at(9))
        two = make_item(title=f"Model-{n}X 发布", published_at=at(10))
        item_match(item=one)
        item_match(item=two)
    freshness.generation_current()  # the writes' bump lands first, as after a commit

    with django_assert_max_num_queries(QUERIES["/"]):
        html = client.get("/").text
    assert len(card_titles(html)) == 15
