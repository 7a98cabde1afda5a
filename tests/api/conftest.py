"""Fixtures for the API tests: a client, tokens, and a throttle count that starts at zero."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _fresh_throttles():
    # Throttle counts live in the cache; each test starts with none spent.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api() -> APIClient:
    """An anonymous API client that asks for English messages."""
    return APIClient(HTTP_ACCEPT_LANGUAGE="en")


@pytest.fixture
def token_client():
    """Make an API client that sends the given user's token, as an integration would."""

    from rest_framework.authtoken.models import Token

    def make(user) -> APIClient:
        token, _ = Token.objects.get_or_create(user=user)
        client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make
