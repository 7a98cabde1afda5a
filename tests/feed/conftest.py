import pytest

from tests.loopback import LoopbackServer


@pytest.fixture
def server():
    """A loopback HTTP server for this test (stopped afterwards)."""
    loopback = LoopbackServer()
    yield loopback
    loopback.stop()


@pytest.fixture
def fetching(settings):
    """Fetch settings for tests: 127.0.0.1 allowed, no gap between requests, short timeouts."""
    settings.FETCH_ALLOW_HOSTS = ["127.0.0.1"]
    settings.FETCH_HOST_GAP = 0.0
    settings.FETCH_CONNECT_TIMEOUT = 2.0
    settings.FETCH_READ_TIMEOUT = 2.0
    settings.FETCH_TOTAL_TIMEOUT = 10.0
    return settings
