"""The first stream page: visible items, day by day, newest first."""

import datetime
import re
import zoneinfo

import pytest

from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")


def at(month: int, day: int, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, minute, tzinfo=SHANGHAI)


def day_headings(html: str) -> list[str]:
    return re.findall(r'<h2 class="day-heading"[^>]*>([^<]+)</h2>', html)


def test_day_headings_come_newest_first_in_the_site_time_zone(client):
    make_item(title="June 18 story", published_at=at(6, 18, 9, 50))
    # 00:30 in Shanghai: still June 18 in UTC, but June 19 on the page.
    make_item(title="June 19 story", published_at=at(6, 19, 0, 30))
    make_item(title="June 10 story", published_at=at(6, 10, 12))

    html = client.get("/").text

    assert day_headings(html) == ["6月19日", "6月18日", "6月10日"]
    assert html.index("June 19 story") < html.index("June 18 story") < html.index("June 10 story")


def test_items_of_a_day_come_newest_first_with_their_local_time(client):
    make_item(title="Morning", published_at=at(6, 19, 9, 50))
    make_item(title="Evening", published_at=at(6, 19, 20, 46))

    html = client.get("/").text

    assert html.index("Evening") < html.index("Morning")
    assert ">09:50</time>" in html and ">20:46</time>" in html


def test_the_stream_never_shows_drafts_rejected_or_scheduled_items(client):
    make_item(title="A published story")
    make_item(title="A draft nobody reviewed", status="draft")
    make_item(title="A rejected duplicate", status="rejected")
    make_item(
        title="A story for tomorrow",
        published_at=datetime.datetime.now(tz=SHANGHAI) + datetime.timedelta(days=1),
    )

    html = client.get("/").text

    assert "A published story" in html
    assert "A draft nobody reviewed" not in html
    assert "A rejected duplicate" not in html
    assert "A story for tomorrow" not in html


def test_an_item_card_shows_source_authors_heat_badge_and_tags(client):
    source = make_source(name="arXiv cs.LG", kind="paper")
    make_item(
        source=source,
        title="Quantum ring all-reduce",
        authors="Ada Moreau, Lin Qiao",
        status="featured",
        heat=83,
        category="paper",
        tags=["分布式训练"],
        recommendation="Worth a read for anyone who trains across machines.",
    )

    html = client.get("/").text

    assert "arXiv cs.LG@Ada Moreau, Lin Qiao" in html
    assert "83°" in html
    assert '<span class="badge">精选</span>' in html
    assert "分布式训练" in html
    assert "Worth a read for anyone who trains across machines." in html


def test_an_empty_stream_says_so(client):
    assert "暂无内容" in client.get("/").text


@pytest.mark.parametrize("count", [5, 50])
def test_the_stream_runs_a_fixed_number_of_queries(client, django_assert_max_num_queries, count):
    for n in range(count):
        make_item(published_at=at(6, 1 + n % 20, 8), tags=[f"tag{n % 7}", "共同"])

    with django_assert_max_num_queries(2):
        response = client.get("/")

    assert response.status_code == 200


def test_an_item_page_shows_a_visible_item_and_404s_for_a_draft(client):
    item = make_item(title="Visible story")
    draft = make_item(title="Draft story", status="draft")

    assert "Visible story" in client.get(item.get_absolute_url()).text
    assert client.get(f"/items/{draft.pk}/draft-story/").status_code == 404


def test_an_item_page_with_a_stale_slug_redirects_to_the_right_one(client):
    item = make_item(title="Renamed story")

    response = client.get(f"/items/{item.pk}/old-name/")

    assert response.status_code == 301
    assert response["Location"] == item.get_absolute_url()
