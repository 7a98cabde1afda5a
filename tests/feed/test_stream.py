"""The stream at /: visible items, day by day, newest first, every card complete."""

import datetime
import re

import pytest

from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def at(month: int, day: int, hour: int, minute: int = 0, year: int = 2026) -> datetime.datetime:
    return datetime.datetime(year, month, day, hour, minute, tzinfo=SHANGHAI)


def day_headings(html: str) -> list[str]:
    headings = re.findall(r'<h2 class="day-heading"[^>]*>(.*?)</h2>', html, re.S)
    return [re.sub(r"<[^>]+>", "", heading).strip() for heading in headings]


def test_day_headings_come_newest_first_in_the_site_time_zone(client, clock):
    make_item(title="June 18 story", published_at=at(6, 18, 9, 50))
    # 00:30 in Shanghai: still June 18 in UTC, but June 19 on the page.
    make_item(title="June 19 story", published_at=at(6, 19, 0, 30))
    make_item(title="June 10 story", published_at=at(6, 10, 12))

    html = client.get("/").text

    assert day_headings(html) == ["6月19日", "6月18日", "6月10日"]
    assert html.index("June 19 story") < html.index("June 18 story") < html.index("June 10 story")


def test_day_headings_name_the_year_when_it_is_not_this_year(client, clock):
    make_item(title="Last winter", published_at=at(12, 30, 9, year=2025))
    make_item(title="This summer", published_at=at(6, 19, 9))

    assert day_headings(client.get("/").text) == ["6月19日", "2025年12月30日"]
    english = client.get("/en/").text
    assert day_headings(english) == ["June 19", "December 30, 2025"]


def test_each_day_heading_links_to_its_permalink_keeping_the_filters(client, clock):
    make_item(published_at=at(6, 19, 9), kind="paper")

    html = client.get("/?kind=paper").text

    assert '<a href="/days/2026-06-19/?kind=paper">6月19日</a>' in html


def test_items_of_a_day_come_newest_first_with_their_local_time(client, clock):
    make_item(title="Morning", published_at=at(6, 19, 9, 50))
    make_item(title="Evening", published_at=at(6, 19, 20, 46))

    html = client.get("/").text

    assert html.index("Evening") < html.index("Morning")
    assert ">09:50</time>" in html and ">20:46</time>" in html


def test_the_stream_never_shows_drafts_rejected_or_scheduled_items(client, clock):
    make_item(title="A published story")
    make_item(title="A draft nobody reviewed", status="draft")
    make_item(title="A rejected duplicate", status="rejected")
    make_item(title="A story for tomorrow", published_at=clock.now + datetime.timedelta(days=1))

    html = client.get("/").text

    assert "A published story" in html
    assert "A draft nobody reviewed" not in html
    assert "A rejected duplicate" not in html
    assert "A story for tomorrow" not in html


def test_an_item_card_shows_every_part_a_reader_scans(client, clock):
    source = make_source(name="arXiv cs.LG", kind="paper")
    item = make_item(
        source=source,
        title="Quantum ring all-reduce",
        authors="Ada Moreau, Lin Qiao",
        status="featured",
        heat=83,
        category="paper",
        tags=["分布式训练"],
        summary="Halves the traffic of each ring step.",
        recommendation="Worth a read for anyone who trains across machines.",
        published_at=at(6, 19, 9, 50),
    )

    html = client.get("/").text
    card = html[html.index(f'id="item-{item.pk}"') :]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card))

    assert "09:50 arXiv cs.LG @ Ada Moreau, Lin Qiao 精选 83°" in text
    assert (
        f'<a href="/items/{item.pk}/quantum-ring-all-reduce/">Quantum ring all-reduce</a>' in card
    )
    assert "Halves the traffic of each ring step." in text
    # The category label comes first, then the tags, each a link to the filtered stream.
    assert re.search(
        r'tag--category"><a href="/\?category=paper">论文</a>.*?分布式训练', card, re.S
    )
    # An IRI: the Chinese tag stays as characters, a third of the bytes.
    assert '<a href="/?tag=分布式训练">分布式训练</a>' in card
    assert "推荐理由： Worth a read for anyone who trains across machines." in text
    assert f'<a class="item-original" href="/go/{item.pk}/">原文</a>' in card


def test_a_tweet_card_shows_the_source_handle(client, clock):
    source = make_source(name="Clement Delangue", handle="@ClementDelangue", kind="tweet")
    make_item(source=source, title="Weights, synced sparsely")

    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", client.get("/").text))

    assert "Clement Delangue @ClementDelangue" in text


def test_an_empty_stream_says_so(client, clock):
    assert "暂无内容" in client.get("/").text


def test_an_item_page_shows_a_visible_item_and_404s_for_a_draft(client, clock):
    item = make_item(title="Visible story")
    draft = make_item(title="Draft story", status="draft")

    assert "Visible story" in client.get(item.get_absolute_url()).text
    assert client.get(f"/items/{draft.pk}/draft-story/").status_code == 404


def test_an_item_page_with_a_stale_slug_redirects_to_the_right_one(client, clock):
    item = make_item(title="Renamed story")

    response = client.get(f"/items/{item.pk}/old-name/")

    assert response.status_code == 301
    assert response["Location"] == item.get_absolute_url()


def test_tag_chips_on_cards_keep_the_current_filters(client, clock):
    item = make_item(title="Ring", kind="paper", category="paper", tags=["分布式训练", "量化"])

    html = client.get("/?kind=paper&tag=量化").text
    card = html[html.index(f'id="item-{item.pk}"') :]

    # Adding a tag keeps the kind and the tag already chosen; the chosen one is marked.
    assert '<a href="/?kind=paper&amp;tag=量化&amp;tag=分布式训练">分布式训练</a>' in card
    assert '<a href="/?kind=paper&amp;tag=量化" aria-current="true">量化</a>' in card
    assert 'href="/?kind=paper&amp;category=paper&amp;tag=量化"' in card
