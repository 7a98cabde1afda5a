"""Paging the stream by whole days (`?before=`), and the permalink of one day."""

import datetime
import re
from html import unescape

import pytest

from feed.models import Item
from feed.stream import DAY_MAX_ITEMS, STREAM_MAX_DAYS, stream_page
from tests.conftest import SHANGHAI
from tests.factories import make_item

pytestmark = pytest.mark.django_db


def at(month: int, day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=SHANGHAI)


def day_headings(html: str) -> list[str]:
    headings = re.findall(r'<h2 class="day-heading"[^>]*>(.*?)</h2>', html, re.S)
    return [re.sub(r"<[^>]+>", "", heading).strip() for heading in headings]


def older_link(html: str) -> str | None:
    match = re.search(r'<a class="pager-older" href="([^"]+)"', html)
    return unescape(match.group(1)) if match else None


def test_a_page_holds_whole_days_capped_by_item_count(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 5
    for day, count in [(19, 2), (18, 2), (17, 3), (16, 1)]:
        for hour in range(count):
            make_item(title=f"June {day} #{hour}", published_at=at(6, day, 8 + hour))

    html = client.get("/").text

    # June 17 would make 7 items: it goes whole to the next page, not cut in two.
    assert day_headings(html) == ["6月19日", "6月18日"]
    assert older_link(html) == "/?before=2026-06-18"
    older = client.get(older_link(html)).text
    assert day_headings(older) == ["6月17日", "6月16日"]
    assert older.count('class="item-title"') == 4
    assert older_link(older) is None


def test_a_page_holds_at_most_a_few_days(client, clock):
    for day in range(1, STREAM_MAX_DAYS + 3):
        make_item(published_at=at(6, day))

    html = client.get("/").text

    assert len(day_headings(html)) == STREAM_MAX_DAYS
    assert older_link(html) == "/?before=2026-06-03"
    assert day_headings(client.get("/?before=2026-06-03").text) == ["6月2日", "6月1日"]


def test_a_day_bigger_than_the_page_is_shown_whole_and_alone(clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 3
    for hour in range(5):
        make_item(published_at=at(6, 19, 8 + hour))
    make_item(published_at=at(6, 18))

    page = stream_page(Item.objects.visible())

    assert [(day.date.day, len(day.items)) for day in page.days] == [(19, 5)]
    assert page.older == datetime.date(2026, 6, 19)


def test_a_big_last_day_with_nothing_older_offers_no_older_page(clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 3
    for hour in range(5):
        make_item(published_at=at(6, 19, 8 + hour))

    assert stream_page(Item.objects.visible()).older is None


def test_a_day_beyond_the_hard_cap_says_it_is_cut(clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 3
    Item.objects.bulk_create(
        [
            Item(
                source=make_item().source,
                title=f"Busy {n}",
                url=f"https://busy.example/{n}",
                kind="blog",
                status="published",
                published_at=at(6, 19, 8) + datetime.timedelta(seconds=n),
            )
            for n in range(DAY_MAX_ITEMS + 1)
        ]
    )

    page = stream_page(Item.objects.visible())

    assert len(page.days[0].items) == DAY_MAX_ITEMS
    assert page.days[0].truncated


def test_older_pages_keep_the_filters(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 2
    for day in (19, 18, 17):
        make_item(title=f"paper {day}", kind="paper", tags=["量化"], published_at=at(6, day))
        make_item(title=f"blog {day}", kind="blog", tags=["量化"], published_at=at(6, day, 10))

    html = client.get("/?kind=paper&tag=量化").text

    assert older_link(html) == "/?kind=paper&tag=%E9%87%8F%E5%8C%96&before=2026-06-18"
    older = client.get(older_link(html)).text
    assert re.findall(r'class="item-title"><a [^>]*>([^<]+)</a>', older) == ["paper 17"]


def test_the_first_page_of_an_older_page_links_back_to_the_latest(client, clock):
    make_item(published_at=at(6, 10), kind="news")

    html = client.get("/?kind=news&before=2026-06-15").text

    assert '<a href="/?kind=news">← 最新</a>' in html


def test_a_day_permalink_shows_that_day_only_with_its_neighbours(client, clock):
    make_item(title="Before", published_at=at(6, 12))
    make_item(title="On the day, late", published_at=at(6, 15, 23))
    make_item(title="On the day, early", published_at=at(6, 15, 0))
    make_item(title="After", published_at=at(6, 18))

    html = client.get("/days/2026-06-15/").text

    assert re.findall(r'class="item-title"><a [^>]*>([^<]+)</a>', html) == [
        "On the day, late",
        "On the day, early",
    ]
    assert "<h1>6月15日</h1>" in html
    assert '<a href="/days/2026-06-18/" rel="prev">← 6月18日</a>' in html
    assert '<a class="pager-older" href="/days/2026-06-12/" rel="next">6月12日 →</a>' in html


def test_a_day_permalink_keeps_the_filters(client, clock):
    make_item(title="paper", kind="paper", published_at=at(6, 15))
    make_item(title="blog", kind="blog", published_at=at(6, 15, 10))
    make_item(title="older paper", kind="paper", published_at=at(6, 11))

    html = client.get("/days/2026-06-15/?kind=paper").text

    assert re.findall(r'class="item-title"><a [^>]*>([^<]+)</a>', html) == ["paper"]
    assert 'href="/days/2026-06-11/?kind=paper"' in html


def test_an_empty_day_says_nothing_is_there(client, clock):
    make_item(published_at=at(6, 12))

    response = client.get("/days/2026-06-14/")

    assert response.status_code == 200
    assert "暂无内容" in response.text


@pytest.mark.parametrize("day", ["2026-02-30", "2026-13-01", "0001-01-01", "9999-12-31"])
def test_an_impossible_day_is_not_found(client, day):
    assert client.get(f"/days/{day}/").status_code == 404


@pytest.mark.parametrize("before", ["yesterday", "2026-02-30", "20260619", "0001-01-01"])
def test_a_malformed_before_is_a_400_naming_it(client, before):
    response = client.get("/", {"before": before})

    assert response.status_code == 400
    assert "参数 <code>before</code>" in response.text


def test_the_tabs_of_a_day_page_stay_on_that_day(client, clock):
    make_item(kind="paper", published_at=at(6, 15))

    html = client.get("/days/2026-06-15/?tag=量化").text

    assert '<a href="/days/2026-06-15/?kind=paper&amp;tag=%E9%87%8F%E5%8C%96">论文</a>' in html
