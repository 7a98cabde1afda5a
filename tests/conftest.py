"""Fixtures for every test: a clock to set, so days and visibility never depend on today."""

import datetime
import zoneinfo
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone, translation

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")


@dataclass
class Clock:
    """The moment `django.utils.timezone.now()` returns while a test runs."""

    now: datetime.datetime

    def move(self, delta: datetime.timedelta) -> datetime.datetime:
        self.now += delta
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """Noon on 2026-06-20 in Shanghai, unless the test moves it."""
    clock = Clock(now=datetime.datetime(2026, 6, 20, 12, 0, tzinfo=SHANGHAI))
    monkeypatch.setattr(timezone, "now", lambda: clock.now)
    return clock


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's language: a request's language must not outlive it."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _host_rows_forgotten():
    """Each test starts without the hosts' slot rows a test before it made and rolled back.

    The process remembers the hosts whose rows it made (feed/ingest/leases.py),
    because ingestion never deletes them. A test's rows go with its rollback,
    and a loopback server that gets an earlier test's port is the same host:
    its first claim then finds no row and makes it again, three queries more
    than a batch's count allows (a CI run on PostgreSQL failed on that).
    """
    from feed.ingest import leases

    leases._HOSTS_WITH_ROWS.clear()


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache, as a fresh deployment does."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _generation_bumps_land_before_the_next_read(request, monkeypatch):
    """Nothing commits in a test's own transaction: apply a bump when a page next reads it.

    That is what a reader sees in production (the writer's commit returns
    before their next request). Tests with real commits (transactional_db,
    live_server) keep the real on_commit.
    """
    marker = request.node.get_closest_marker("django_db")
    if {"transactional_db", "live_server"} & set(request.fixturenames) or (
        marker is not None and marker.kwargs.get("transaction")
    ):
        return
    from feed import conditional, freshness

    pending = []
    monkeypatch.setattr(freshness, "_schedule", lambda using=None: pending.append(using))
    read, read_with = freshness.generation_current, freshness.generation_current_with
    read_with_many = freshness.generation_current_with_many

    def land():
        if pending:
            pending.clear()
            freshness._bump_now()

    def current(*, now=None):
        land()
        return read(now=now)

    def current_with(key, *, now=None):
        land()
        return read_with(key, now=now)

    def current_with_many(keys, *, now=None, read=None):
        land()
        return read_with_many(keys, now=now, read=read)

    monkeypatch.setattr(freshness, "generation_current", current)
    monkeypatch.setattr(freshness, "generation_current_with", current_with)
    monkeypatch.setattr(freshness, "generation_current_with_many", current_with_many)
    monkeypatch.setattr(conditional, "generation_current_with", current_with)
