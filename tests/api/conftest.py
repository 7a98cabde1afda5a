"""Fixtures for the API tests: clients, anonymous or with a user's token.

Throttle counts live in the cache, which tests/conftest.py empties around every test.
"""

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def api() -> APIClient:
    """An anonymous API client that asks for English messages."""
    return APIClient(HTTP_ACCEPT_LANGUAGE="en")


@pytest.fixture
def token_client():
    """Make an API client that sends the given user's token, as an integration would."""

    from api.tokens import token_create

    def make(user) -> APIClient:
        _token, key = token_create(user=user, name="tests")
        client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return client

    return make
