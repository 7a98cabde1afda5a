"""Fixtures for every test: a clock to set, so days and visibility never depend on today."""

import datetime
import zoneinfo
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.utils import timezone

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
def _empty_cache():
    """Each test starts with an empty cache, as a fresh deployment does."""
    cache.clear()
    yield
    cache.clear()
