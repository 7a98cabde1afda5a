"""The editors' dashboard on the admin index."""

import datetime
import zoneinfo

import pytest

from editorial.dashboard import dashboard_build
from editorial.workflow import item_feature
from tests.factories import make_chief_editor, make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db


def test_the_figures_count_drafts_scheduled_today_and_failing_sources():
    # Midday in the site's time zone, so "five minutes ago" is still today.
    now = datetime.datetime(2026, 6, 19, 12, tzinfo=zoneinfo.ZoneInfo("Asia/Shanghai"))
    chief = make_chief_editor()
    make_item(status="draft")
    make_item(status="draft")
    make_item(status="rejected")
    make_item(title="Tomorrow", published_at=now + datetime.timedelta(days=1))
    make_item(title="Just now", published_at=now - datetime.timedelta(minutes=5))
    make_item(title="Last week", published_at=now - datetime.timedelta(days=7))
    item_feature(item=make_item(status="draft"), by=chief, now=now)
    broken = make_source(name="Broken feed", consecutive_failures=3, last_status="failed")
    make_source(name="Paused and broken", is_active=False, consecutive_failures=9)
    make_source(name="Healthy", last_status="ok")

    dashboard = dashboard_build(now=now)

    assert (dashboard.drafts, dashboard.scheduled) == (2, 1)
    assert [item.title for item in dashboard.next_scheduled] == ["Tomorrow"]
    assert (dashboard.published_today, dashboard.featured_today) == (2, 1)
    assert (dashboard.failing, dashboard.failing_sources) == (1, [broken])


def test_the_admin_index_shows_the_dashboard_to_editors(client):
    make_item(status="draft")
    make_source(name="Broken feed", consecutive_failures=2, last_error="HTTP 503 from the feed")
    client.force_login(make_editor())

    html = client.get("/admin/", headers={"accept-language": "en"}).text

    assert '<div class="module editorial-dashboard" id="editorial-dashboard">' in html
    assert "<strong>1</strong>drafts waiting" in html
    assert "Broken feed" in html and "HTTP 503 from the feed" in html


def test_staff_who_cannot_see_items_get_no_dashboard(client):
    client.force_login(make_user(is_staff=True))

    assert "editorial-dashboard" not in client.get("/admin/").text
