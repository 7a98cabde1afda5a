"""Tags and days with counts: the same filters, and only published items counted."""

import datetime

import pytest

from tests.factories import make_item

pytestmark = pytest.mark.django_db


@pytest.fixture
def items(clock):
    today = clock.now - datetime.timedelta(hours=1)
    yesterday = clock.now - datetime.timedelta(days=1)
    make_item(tags=["agents", "大模型"], kind="paper", published_at=today)
    make_item(tags=["agents"], kind="blog", published_at=today)
    make_item(tags=["agents"], kind="paper", published_at=yesterday)
    # None of these may be counted anywhere.
    make_item(tags=["agents", "secret"], status="draft")
    make_item(tags=["agents", "secret"], status="rejected")
    make_item(tags=["agents", "secret"], published_at=clock.now + datetime.timedelta(hours=2))


def test_tags_count_only_published_items(api, items):
    response = api.get("/api/v1/tags/")

    assert response.status_code == 200
    assert response.json() == [
        {"slug": "agents", "name": "agents", "count": 3},
        {"slug": "大模型", "name": "大模型", "count": 1},
    ]


def test_tags_follow_the_filters(api, items):
    response = api.get("/api/v1/tags/?kind=blog")

    assert response.json() == [{"slug": "agents", "name": "agents", "count": 1}]


def test_tags_limit_is_checked(api):
    response = api.get("/api/v1/tags/?limit=0")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["limit"]


def test_days_count_only_published_items_newest_first(api, items):
    response = api.get("/api/v1/days/")

    assert response.status_code == 200
    assert response.json()["results"] == [
        {"date": "2026-06-20", "count": 2},
        {"date": "2026-06-19", "count": 1},
    ]


def test_days_follow_the_filters_and_page_by_cursor(api, items):
    first = api.get("/api/v1/days/?kind=paper&page_size=1").json()
    second = api.get(first["next"]).json()

    assert first["results"] == [{"date": "2026-06-20", "count": 1}]
    assert second["results"] == [{"date": "2026-06-19", "count": 1}]
    assert second["next"] is None


def test_days_are_the_site_time_zone_days(api, clock):
    # 23:30 in Shanghai is 15:30 UTC the same day; 00:30 in Shanghai is the day before in UTC.
    make_item(published_at=datetime.datetime(2026, 6, 20, 0, 30, tzinfo=clock.now.tzinfo))
    make_item(published_at=datetime.datetime(2026, 6, 19, 23, 30, tzinfo=clock.now.tzinfo))

    results = api.get("/api/v1/days/").json()["results"]

    assert results == [{"date": "2026-06-20", "count": 1}, {"date": "2026-06-19", "count": 1}]
