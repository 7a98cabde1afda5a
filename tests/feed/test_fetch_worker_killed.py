"""A fetch_worker killed (SIGKILL) in the middle of a batch: nothing lost, nothing twice.

A real `manage.py fetch_worker` process claims a batch of twelve sources and
fetches them all at once; six feeds answer at once, six hang. Once the six
are written and the other six are in flight, the worker is killed. Its
leases (and its hosts' slots) are then aged past their expiry — what the
passing of AITOP_FETCH_LEASE_SECONDS would do — and a second worker runs
until nothing is due. Every source must then have been recorded exactly
once, with all its entries whole, and no lease left behind.
"""

import subprocess
import sys
import threading
import time

from tests.feed.test_fetch_workers import PROJECT, WAIT, django_code, environment
from tests.feed.test_fetch_workers import worker_database as worker_database_fixture
from tests.loopback import respond, rss, rss_item

SOURCES = 12
ENTRIES = 5

SETUP = """
import json
from tests.factories import make_source
print(json.dumps([make_source(slug=f"k{{n}}", feed_url=url).pk for n, url in enumerate({urls!r})]))
"""

PROGRESS = """
import json
from feed.models import FetchAttempt
print(json.dumps(FetchAttempt.objects.count()))
"""

AGE_LEASES = """
import datetime, json
from django.utils import timezone
from feed.models import FetchHost, Source
past = timezone.now() - datetime.timedelta(seconds=1)
leased = Source.objects.exclude(lease_owner="").update(lease_expires_at=past)
FetchHost.objects.exclude(busy_owner="").update(busy_until=past)
print(json.dumps(leased))
"""

OUTCOME = """
import json
from django.db.models import Count
from feed.models import FetchAttempt, Item, Source
print(json.dumps({
    "attempts": sorted(
        Source.objects.annotate(n=Count("fetch_attempts")).values_list("n", flat=True)
    ),
    "statuses": sorted(set(FetchAttempt.objects.values_list("status", flat=True))),
    "items": Item.objects.count(),
    "whole": Item.objects.exclude(title="").exclude(body="").exclude(url="").count(),
    "per_source": sorted(
        Source.objects.annotate(n=Count("items")).values_list("n", flat=True)
    ),
    "leases": Source.objects.exclude(lease_owner="").count(),
}))
"""


def worker(database_url: str, *args: str) -> subprocess.Popen:
    env = environment(database_url) | {"AITOP_FETCH_PER_HOST": str(SOURCES)}
    return subprocess.Popen(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", "fetch_worker", "--interval", "0.1", *args],
        cwd=PROJECT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def until(condition, *, what: str) -> None:
    """Poll `condition` (a state of other processes) until it holds, or fail after WAIT s."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


worker_database = worker_database_fixture


def test_a_worker_killed_mid_batch_loses_nothing_and_fetches_nothing_twice(worker_database, server):
    hang = threading.Event()

    def feed(n: int):
        body = rss(*(rss_item(n * 100 + k, host=f"k{n}.example") for k in range(ENTRIES)))

        def handler(h):
            if n % 2 and not hang.is_set():
                # The first worker's request hangs until it is dead.
                server.stopping.wait(WAIT)
                return
            respond(h, body)

        return handler

    urls = [server.route(f"/feed/{n}", feed(n)) for n in range(SOURCES)]
    django_code(worker_database, SETUP.format(urls=urls))

    doomed = worker(worker_database, "--concurrency", str(SOURCES), "--batch-size", str(SOURCES))
    until(lambda: django_code(worker_database, PROGRESS) == SOURCES // 2, what="six fetches")
    until(lambda: server.in_flight == SOURCES // 2, what="six hanging requests")
    doomed.kill()
    doomed.wait(timeout=WAIT)
    hang.set()

    assert django_code(worker_database, AGE_LEASES) == SOURCES // 2
    survivor = worker(worker_database, "--until-idle")
    assert survivor.wait(timeout=WAIT) == 0, survivor.stderr.read()

    assert django_code(worker_database, OUTCOME) == {
        "attempts": [1] * SOURCES,
        "statuses": ["ok"],
        "items": SOURCES * ENTRIES,
        "whole": SOURCES * ENTRIES,
        "per_source": [ENTRIES] * SOURCES,
        "leases": 0,
    }
    for n in range(SOURCES):
        # Hanging feeds were asked twice (once by the dead worker), the rest once.
        assert server.hits(f"/feed/{n}") == (2 if n % 2 else 1)
