"""fetch_worker's readers: documents parsed in other processes read exactly as in the worker.

A `ReaderPool` runs parse and normalise in spawned processes. What comes
back must be what the fetch thread would have read itself, for every
document of the corpus, broken ones included; a reader that dies fails only
the fetch it was reading; and a worker killed outright leaves no reader
behind.
"""

import datetime
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from feed.ingest import wording
from feed.ingest.parse import ParseError
from feed.ingest.reading import ReaderPool, body_read, fork_is_safe
from feed.models import Item
from tests.factories import make_source
from tests.feed.test_fetch_workers import PROJECT, WAIT, environment
from tests.feed.test_fetch_workers import worker_database as worker_database_fixture
from tests.feed.test_ingest_corpus import MANIFEST
from tests.loopback import FEEDS, rss, rss_item

NOW = datetime.datetime(2026, 12, 5, 12, 0, tzinfo=datetime.UTC)
worker_database = worker_database_fixture


@pytest.fixture(scope="module")
def readers():
    with ReaderPool(2) as pool:
        pool.wait_started()
        yield pool


def read_or_error(read, body: bytes, name: str):
    """What a read gives: the document read, or the message of the ParseError."""
    content_type = "application/feed+json" if name.endswith(".json") else ""
    try:
        return read(
            body, content_type=content_type, url=f"https://example.com/{name}", now=NOW, limit=200
        )
    except ParseError as error:
        return str(error)


@pytest.mark.parametrize("name", [doc["file"] for doc in MANIFEST])
def test_every_corpus_document_reads_the_same_in_a_reader_process(readers, name):
    body = (FEEDS / name).read_bytes()

    assert read_or_error(readers.read, body, name) == read_or_error(body_read, body, name)


def test_a_reader_that_dies_fails_that_read_with_a_message_and_the_next_read_works():
    body = rss(rss_item(1), rss_item(2))
    with ReaderPool(1) as pool:
        pool.wait_started()
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)
            child.join(timeout=WAIT)

        with pytest.raises(ParseError) as died:
            pool.read(body, content_type="", url="https://example.com/", now=NOW, limit=200)
        read = pool.read(body, content_type="", url="https://example.com/", now=NOW, limit=200)

    assert str(died.value) == wording.READER_DIED
    assert [entry.title for entry in read.entries] == ["Story number 1", "Story number 2"]


def test_closing_a_pool_whose_readers_are_still_starting_ends_them_at_once():
    # Setting Django up takes a spawned process about half a second: a worker
    # run with --until-idle over a short queue used to wait that long at its end.
    pool = ReaderPool(2, fork=False)
    starting = list(pool._executor._processes.values())

    pool.close()

    assert len(starting) == 2
    assert [process.exitcode for process in starting] == [-signal.SIGKILL] * 2


def test_closing_a_started_pool_lets_its_readers_end_on_their_own():
    pool = ReaderPool(1)
    pool.wait_started()
    started = list(pool._executor._processes.values())

    pool.close()

    assert [process.exitcode for process in started] == [0]


FORKED_POOL = """
import os, django
django.setup()
from django.utils import timezone
from feed.ingest.reading import ReaderPool, fork_is_safe
safe = fork_is_safe()
with ReaderPool(1) as pool:
    pool.wait_started()
    (reader,) = pool._executor._processes.values()
    read = pool.read(BODY, content_type="", url="https://example.com/", now=timezone.now(), limit=9)
    print(safe, pool._executor._mp_context.get_start_method(), reader.pid != os.getpid())
    print([entry.title for entry in read.entries])
"""


def test_a_pool_made_before_any_thread_or_connection_forks_its_readers():
    # As fetch_worker makes it: its readers start without setting Django up again.
    script = FORKED_POOL.replace("BODY", repr(rss(rss_item(1), rss_item(2))))
    done = subprocess.run(  # noqa: S603 (our own code)
        [sys.executable, "-c", script],
        cwd=PROJECT,
        env={**environment("sqlite:///:memory:"), "DJANGO_SETTINGS_MODULE": "aitop.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert done.stdout.splitlines() == [
        "True fork True",
        "['Story number 1', 'Story number 2']",
    ]


def test_a_process_holding_a_database_connection_does_not_fork(db):
    from django.db import connection

    connection.ensure_connection()

    assert not fork_is_safe()


def test_a_process_running_another_thread_spawns_its_readers():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not fork_is_safe()
        with ReaderPool(1) as pool:
            assert pool._executor._mp_context.get_start_method() == "spawn"
    finally:
        stop.set()
        other.join()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("readers", [0, 2])
def test_fetch_worker_stores_what_each_document_holds_with_or_without_readers(
    readers, server, fetching
):
    names = [
        "rss-parser__guardian.rss",
        "jsonfeed.net__DaringFireballBlog.json",
        "rome__atom_1.0_b.xml",
    ]
    expected = []
    for n, name in enumerate(names):
        url = server.serve_feed_file(f"/feed/{n}", name)
        make_source(slug=f"s{n}", feed_url=url)
        read = body_read((FEEDS / name).read_bytes(), content_type="", url=url, now=NOW, limit=200)
        expected += [(entry.url, entry.title, entry.authors, entry.body) for entry in read.entries]

    call_command("fetch_worker", "--until-idle", "--readers", str(readers), verbosity=0)

    assert len(expected) > 30
    # Not the summary: the enrichment that new items set off may rewrite it.
    assert sorted(Item.objects.values_list("url", "title", "authors", "body")) == sorted(expected)


@pytest.mark.django_db(transaction=True)
def test_a_fetch_worker_killed_outright_leaves_no_reader_behind(worker_database):
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "fetch_worker", "--readers", "2", "--interval", "0.1"],
        cwd=PROJECT,
        env=environment(worker_database),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + WAIT
    while len(children(worker.pid)) < 2:
        assert time.monotonic() < deadline, "the worker did not start its readers"
        time.sleep(0.05)
    readers = children(worker.pid)

    worker.kill()
    worker.wait(timeout=WAIT)

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in readers):
        assert time.monotonic() < deadline, "a reader outlived its worker"
        time.sleep(0.1)


def children(pid: int) -> list[int]:
    """The processes `pid` started (Linux's /proc)."""
    tasks = Path(f"/proc/{pid}/task")
    return [
        int(child) for task in tasks.iterdir() for child in (task / "children").read_text().split()
    ]


def alive(pid: int) -> bool:
    """Running, not ended (an ended child nobody has reaped yet is a zombie: 'Z')."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
