"""A running fetch_worker with nothing due wakes when the next source falls due."""

from tests.feed.test_fetch_worker_killed import until, worker
from tests.feed.test_fetch_workers import django_code
from tests.feed.test_fetch_workers import worker_database as worker_database_fixture
from tests.loopback import rss, rss_item

worker_database = worker_database_fixture

SCHEDULED = """
import datetime, json
from django.utils import timezone
from tests.factories import make_source
due = timezone.now() + datetime.timedelta(seconds={seconds})
make_source(slug="scheduled", feed_url={url!r}, next_fetch_at=due)
print(json.dumps(due.timestamp()))
"""

FETCHED = """
import json
from feed.models import Source
fetched = Source.objects.get(slug="scheduled").last_fetched_at
print(json.dumps(fetched and fetched.timestamp()))
"""


def test_a_source_is_fetched_when_it_falls_due_not_a_polling_interval_later(
    worker_database, server
):
    url = server.serve("/feed", rss(rss_item(1, host="scheduled.example")))
    due = django_code(worker_database, SCHEDULED.format(seconds=4, url=url))
    # Polling every 60 s, the worker would first look again long after the source fell due.
    running = worker(worker_database, "--interval", "60")
    try:
        until(lambda: django_code(worker_database, FETCHED), what="the scheduled fetch")
        fetched = django_code(worker_database, FETCHED)
    finally:
        running.terminate()
        running.wait(timeout=30)

    assert due <= fetched < due + 3, (fetched - due, running.stderr.read())
