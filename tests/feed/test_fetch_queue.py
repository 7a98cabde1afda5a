"""The fetch queue's depth and lag, as the admin's source list and `fetch_status` show them."""

import datetime
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from feed.ingest.due import FetchQueue, fetch_queue, idle_seconds
from feed.models import Source
from tests.factories import make_source

pytestmark = pytest.mark.django_db
NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
MINUTE = datetime.timedelta(minutes=1)


def a_queue(now: datetime.datetime) -> None:
    """Two due (one 40 min late), one being fetched, one due soon, one later, one failing."""
    make_source(slug="late", next_fetch_at=now - 40 * MINUTE)
    make_source(slug="due", next_fetch_at=now - 5 * MINUTE, consecutive_failures=6)
    make_source(
        slug="held",
        next_fetch_at=now - 90 * MINUTE,
        lease_owner="w1",
        lease_expires_at=now + MINUTE,
    )
    make_source(slug="soon", next_fetch_at=now + 20 * MINUTE)
    make_source(slug="later", next_fetch_at=now + 3 * 60 * MINUTE)
    make_source(slug="off", next_fetch_at=now - 600 * MINUTE, is_active=False)
    make_source(slug="by-hand", feed_url="", next_fetch_at=now - 600 * MINUTE)


def test_the_queue_counts_what_is_due_in_flight_and_soon_and_how_late_the_oldest_is():
    a_queue(NOW)

    assert fetch_queue(now=NOW) == FetchQueue(
        active=5, due=2, fetching=1, due_next_hour=1, failing=1, lag=40 * MINUTE
    )


def test_a_never_fetched_source_has_waited_since_it_was_added():
    source = make_source(next_fetch_at=None)
    Source.objects.filter(pk=source.pk).update(created_at=NOW - 7 * MINUTE)

    assert fetch_queue(now=NOW).lag == 7 * MINUTE


def test_the_queue_is_one_query(django_assert_num_queries):
    a_queue(NOW)
    with django_assert_num_queries(1):
        fetch_queue(now=NOW)


def test_a_worker_with_nothing_due_sleeps_until_the_next_source_falls_due():
    a_queue(NOW)  # the next to fall due: "soon", in 20 minutes

    assert idle_seconds(now=NOW, longest=3600) == pytest.approx(20 * 60, abs=0.01)
    assert idle_seconds(now=NOW, longest=15) == 15
    make_source(slug="any-moment", next_fetch_at=NOW + datetime.timedelta(seconds=2))
    assert idle_seconds(now=NOW, longest=15) == pytest.approx(2, abs=0.01)


def test_a_worker_with_nothing_scheduled_sleeps_its_whole_interval():
    make_source(slug="off", next_fetch_at=NOW + MINUTE, is_active=False)
    make_source(slug="by-hand", feed_url="", next_fetch_at=NOW + MINUTE)

    assert idle_seconds(now=NOW, longest=15) == 15


def test_the_source_list_shows_the_queue(admin_client):
    a_queue(timezone.now())

    page = admin_client.get(reverse("admin:feed_source_changelist"), HTTP_ACCEPT_LANGUAGE="en").text

    cells = dict(re.findall(r'<td class="queue-([\w-]+)">([^<]*)</td>', page))
    assert cells == {
        "active": "5",
        "due": "2",
        "fetching": "1",
        "next-hour": "1",
        "failing": "1",
        "lag": "the most overdue source has waited 40\xa0minutes",
    }


def test_fetch_status_prints_the_queue_and_the_most_overdue_sources():
    a_queue(timezone.now())
    out = StringIO()

    call_command("fetch_status", "--overdue", "5", stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[2].split() == ["5", "2", "1", "1", "1", "40", "min"]
    assert [line.split()[0] for line in lines[6:]] == ["late", "due"]
