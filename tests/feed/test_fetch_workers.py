"""Real worker processes (`manage.py db_worker`) against a real database.

On PostgreSQL the workers use the test database itself. SQLite's test
database lives in this process's memory, where no other process can reach
it, so there the same scenario runs against a fresh SQLite file that the
test migrates first: SQLite allows several processes on one file (each
write waits for the lock), which is exactly what the lease has to hold up
against.
"""

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from django.db import connection

from tests.loopback import respond, rss, rss_item

PROJECT = Path(__file__).resolve().parents[2]
WAIT = 60  # seconds a subprocess may take before the test gives up


@pytest.fixture
def worker_database(transactional_db, tmp_path) -> str:
    """A DATABASE_URL that processes other than this one can use, migrated."""
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        return (
            f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:"
            f"{s['PORT'] or 5432}/{s['NAME']}"
        )
    url = f"sqlite:///{tmp_path / 'workers.sqlite3'}"
    manage(url, "migrate", "--noinput", "-v0")
    return url


def environment(database_url: str) -> dict:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DATABASE_POOL="0",
        TASKS_BACKEND="database",
        SECRET_KEY="tests-only-not-a-secret",
        DEBUG="0",
        STATIC_MANIFEST="0",
        AITOP_FETCH_ALLOW_HOSTS="127.0.0.1",
        AITOP_FETCH_HOST_GAP="0",
        LOG_LEVEL="WARNING",
    )
    return env


def manage(database_url: str, *args: str) -> str:
    done = subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=environment(database_url),
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def django_code(database_url: str, code: str):
    """Run Python in a Django shell of its own; what it prints as JSON comes back."""
    out = manage(database_url, "shell", "-c", textwrap.dedent(code))
    return json.loads(out.strip().splitlines()[-1])


def source_with_queued_fetches(database_url: str, feed_url: str, *, fetches: int) -> int:
    """A source of `feed_url` with `fetches` fetch tasks waiting in the queue; its id."""
    return django_code(
        database_url,
        f"""
        import json
        from feed.tasks import fetch_source
        from tests.factories import make_source
        source = make_source(feed_url={feed_url!r})
        for _ in range({fetches}):
            fetch_source.enqueue(source.pk)
        print(json.dumps(source.pk))
        """,
    )


def start_worker(database_url: str, name: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--batch",
            "--interval",
            "0.05",
            "--no-startup-delay",
            "--no-reload",
            "--worker-id",
            name,
        ],
        cwd=PROJECT,
        env=environment(database_url),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


STATE = """
import json
from django_tasks_db.models import DBTaskResult
from feed.models import FetchAttempt, Item, Source
source = Source.objects.get(pk={pk})
# The fetches only: the items they bring in queue stories' and enrichment's tasks too.
fetches = DBTaskResult.objects.filter(task_path="feed.tasks.fetch_source")
print(json.dumps({{
    "items": Item.objects.filter(source=source).count(),
    "distinct_urls": Item.objects.values("url").distinct().count(),
    "attempts": list(FetchAttempt.objects.values_list("status", "items_new")),
    "returns": sorted(r["status"] for r in fetches.values_list("return_value", flat=True) if r),
    "tasks": sorted(fetches.values_list("status", flat=True)),
    "last_status": source.last_status,
    "lease_owner": source.lease_owner,
}}))
"""


def test_two_workers_on_the_same_source_fetch_it_once_with_nothing_lost(worker_database, server):
    entries = 30
    workers: list[subprocess.Popen] = []

    def feed(h):
        # Answer only once the other worker has tried this source and given
        # up (it exits when the queue is empty): both really ran at once.
        for _ in range(WAIT * 20):
            if any(worker.poll() is not None for worker in workers):
                break
            if server.stopping.wait(0.05):
                return
        respond(h, rss(*(rss_item(n) for n in range(entries))))

    pk = source_with_queued_fetches(worker_database, server.route("/feed", feed), fetches=2)

    workers.extend(start_worker(worker_database, f"worker-{n}") for n in (1, 2))
    for worker in workers:
        assert worker.wait(timeout=WAIT) == 0, worker.stderr.read()

    state = django_code(worker_database, STATE.format(pk=pk))
    assert server.hits("/feed") == 1
    assert server.max_in_flight == 1
    assert state["tasks"] == ["SUCCESSFUL", "SUCCESSFUL"]
    assert state["returns"] == ["busy", "ok"]
    assert state["items"] == state["distinct_urls"] == entries
    assert state["attempts"] == [["ok", entries]]
    assert (state["last_status"], state["lease_owner"]) == ("ok", "")


def test_a_worker_killed_mid_fetch_leaves_nothing_half_written(worker_database, server):
    entered = threading.Event()

    def feed(h):
        entered.set()
        server.stopping.wait(WAIT)

    pk = source_with_queued_fetches(worker_database, server.route("/feed", feed), fetches=1)
    worker = start_worker(worker_database, "doomed")
    assert entered.wait(WAIT)

    worker.kill()
    worker.wait(timeout=WAIT)

    state = django_code(
        worker_database,
        f"""
        import datetime, json
        from django.utils import timezone
        from feed.ingest.due import sources_due
        from feed.models import FetchAttempt, Item, Source
        source = Source.objects.get(pk={pk})
        after = source.lease_expires_at + datetime.timedelta(seconds=1)
        print(json.dumps({{
            "items": Item.objects.count(),
            "attempts": FetchAttempt.objects.count(),
            "last_fetched_at": str(source.last_fetched_at),
            "leased": bool(source.lease_owner) and source.lease_owner != "queued",
            "due_now": sources_due(now=timezone.now()).filter(pk=source.pk).exists(),
            "due_after_lease": sources_due(now=after).filter(pk=source.pk).exists(),
        }}))
        """,
    )
    assert state == {
        "items": 0,
        "attempts": 0,
        "last_fetched_at": "None",
        "leased": True,
        "due_now": False,
        "due_after_lease": True,
    }
