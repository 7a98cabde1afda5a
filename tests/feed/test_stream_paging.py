"""Paging the stream by keyset (`?before=<cursor>`), and the permalink of one day."""

import datetime
import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from feed.models import Item
from feed.paging import Cursor, stream_page
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def at(month: int, day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=SHANGHAI)


def day_headings(html: str) -> list[str]:
    headings = re.findall(r'<h2 class="day-heading"[^>]*>(.*?)</h2>', html, re.S)
    return [re.sub(r"<[^>]+>", "", heading).strip() for heading in headings]


def older_link(html: str) -> str | None:
    match = re.search(r'<a class="pager-older" href="([^"]+)" rel="next"', html)
    return unescape(match.group(1)) if match else None


def titles(html: str) -> list[str]:
    return re.findall(r'class="item-title"><a [^>]*>([^<]+)</a>', html)


def walk(client, url: str) -> list[list[str]]:
    """The titles of every page, following the rel="next" links from `url`."""
    pages = []
    while url:
        html = client.get(url).text
        pages.append(titles(html))
        url = older_link(html)
    return pages


def test_pages_hold_at_most_the_page_size_and_cover_everything_once(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 4
    source = make_source()
    moment = at(6, 19, 12)
    # Three items share one publish time: the id breaks the tie, so none is lost or repeated.
    expected = []
    for n in range(11):
        published = moment if n < 3 else moment - datetime.timedelta(hours=n)
        expected.append(make_item(title=f"Item {n:02d}", source=source, published_at=published))
    expected.sort(key=lambda item: (item.published_at, item.pk), reverse=True)

    pages = walk(client, "/")

    assert [len(page) for page in pages] == [4, 4, 3]
    assert [title for page in pages for title in page] == [item.title for item in expected]


def test_a_day_cut_by_the_page_is_marked_on_both_sides(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 3
    for hour in range(4):
        make_item(title=f"June 19 #{hour}", published_at=at(6, 19, 8 + hour))
    make_item(title="June 18", published_at=at(6, 18))

    first = client.get("/").text
    second = client.get(older_link(first)).text

    assert day_headings(first) == ["6月19日"]
    assert "本日更多内容见下一页。" in first
    assert day_headings(second) == ["6月19日 （续）", "6月18日"]
    assert titles(second) == ["June 19 #0", "June 18"]
    assert older_link(second) is None


def test_the_next_page_is_stable_when_new_items_arrive(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 2
    for n in range(4):
        make_item(title=f"Old {n}", published_at=at(6, 19, 8 - n))
    link = older_link(client.get("/").text)

    make_item(title="Brand new", published_at=at(6, 19, 11))

    assert titles(client.get(link).text) == ["Old 2", "Old 3"]


def test_the_next_link_is_a_cursor_and_the_head_says_rel_next(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 1
    make_item(title="Newer", published_at=at(6, 19, 9))
    older = make_item(title="Older", published_at=at(6, 19, 8))
    newer = Item.objects.get(title="Newer")

    html = client.get("/").text

    token = Cursor.after(newer).token()
    assert token == f"20260619T010000000000Z-{newer.pk}"
    assert older_link(html) == f"/?before={token}"
    assert f'<link rel="next" href="/?before={token}">' in html
    assert titles(client.get(older_link(html)).text) == [older.title]


def test_stream_page_reads_one_page_of_cards(clock, settings, django_assert_num_queries):
    settings.AITOP_STREAM_PAGE_ITEMS = 5
    for n in range(12):
        make_item(published_at=at(6, 19, 12) - datetime.timedelta(minutes=n), tags=["量化"])

    # The cards (one more than fits, telling there is an older page) and their tags.
    with django_assert_num_queries(2):
        page = stream_page(Item.objects.visible())

    assert sum(len(day.items) for day in page.days) == 5
    assert page.older is not None


def test_pages_feeds_and_the_api_list_never_read_the_articles_bodies(client, clock):
    # A feed's full text: the biggest column of an item, and no card shows it.
    make_item(title="A long read", published_at=at(6, 19), body="<p>" + "word " * 20_000 + "</p>")
    body = connection.ops.quote_name("body")

    with CaptureQueriesContext(connection) as queries:
        pages = [
            client.get(url)
            for url in ("/", "/days/2026-06-19/", "/?q=long", "/feed.xml", "/api/v1/items/")
        ]

    assert [page.status_code for page in pages] == [200] * 5
    assert all("A long read" in page.content.decode() for page in pages)
    assert [q["sql"] for q in queries.captured_queries if f".{body}" in q["sql"]] == []


def test_an_old_date_link_still_pages_from_that_day(client, clock):
    make_item(title="June 19", published_at=at(6, 19))
    make_item(title="June 17", published_at=at(6, 17))

    assert titles(client.get("/?before=2026-06-18").text) == ["June 17"]


def test_older_pages_keep_the_filters(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 1
    for day in (19, 18, 17):
        make_item(title=f"paper {day}", kind="paper", tags=["量化"], published_at=at(6, day))
        make_item(title=f"blog {day}", kind="blog", tags=["量化"], published_at=at(6, day, 10))

    pages = walk(client, "/?kind=paper&tag=量化")

    assert pages == [["paper 19"], ["paper 18"], ["paper 17"]]
    assert older_link(client.get("/?kind=paper&tag=量化").text).startswith(
        "/?kind=paper&tag=量化&before=2026"
    )


def test_a_busy_day_page_is_paged_too(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 2
    for n in range(5):
        make_item(title=f"Busy {n}", published_at=at(6, 15, 20 - n))
    make_item(title="Another day", published_at=at(6, 14))

    pages = walk(client, "/days/2026-06-15/")

    assert pages == [["Busy 0", "Busy 1"], ["Busy 2", "Busy 3"], ["Busy 4"]]


def test_search_results_and_tag_streams_are_paged(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 2
    for n in range(3):
        make_item(title=f"Lumen {n}", tags=["量化"], published_at=at(6, 19, 10 - n))

    assert walk(client, "/?q=Lumen") == [["Lumen 0", "Lumen 1"], ["Lumen 2"]]
    assert walk(client, "/?tag=量化") == [["Lumen 0", "Lumen 1"], ["Lumen 2"]]


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
    assert '<a href="/days/2026-06-18/">← 6月18日</a>' in html
    assert '<a class="pager-older-day" href="/days/2026-06-12/">6月12日 →</a>' in html


def test_a_days_neighbours_are_days_a_reader_can_see_under_the_filters(client, clock):
    make_item(title="visible paper", kind="paper", published_at=at(6, 15))
    make_item(title="older blog", kind="blog", published_at=at(6, 13))
    make_item(title="older draft", kind="paper", status="draft", published_at=at(6, 12))
    make_item(title="oldest paper", kind="paper", published_at=at(6, 10))
    make_item(title="newer rejected", kind="paper", status="rejected", published_at=at(6, 16))

    html = client.get("/days/2026-06-15/?kind=paper").text
    alone = client.get("/days/2026-06-10/?kind=paper").text

    assert '<a class="pager-older-day" href="/days/2026-06-10/?kind=paper">6月10日 →</a>' in html
    assert "← 6月" not in html  # nothing newer that a reader may see
    assert "pager-older-day" not in alone
    assert '<a href="/days/2026-06-15/?kind=paper">← 6月15日</a>' in alone


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


@pytest.mark.parametrize(
    "before",
    ["yesterday", "2026-02-30", "20260619", "0001-01-01", "20260619T010000Z-1", "2026T-x"],
)
def test_a_malformed_before_is_a_400_naming_it(client, before):
    response = client.get("/", {"before": before})

    assert response.status_code == 400
    assert "参数 <code>before</code>" in response.text


def test_the_tabs_of_a_day_page_stay_on_that_day(client, clock):
    make_item(kind="paper", published_at=at(6, 15))

    html = client.get("/days/2026-06-15/?tag=量化").text

    assert '<a href="/days/2026-06-15/?kind=paper&amp;tag=量化">论文</a>' in html
