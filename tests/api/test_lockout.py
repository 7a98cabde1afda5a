"""Lockout after repeated failures: the admin login and API tokens, per user and address, 429."""

import io

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client

from api.tokens import token_create
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"


def _login(client: Client, username: str, password: str):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def test_admin_login_locks_out_after_five_failures_even_with_the_right_password(client, settings):
    make_user(username="chief", password=PASSWORD, is_staff=True)

    refused = [_login(client, "chief", f"wrong-{n}").status_code for n in range(4)]
    fifth = _login(client, "chief", "wrong-5")
    right = _login(client, "chief", PASSWORD)

    assert refused == [200, 200, 200, 200]  # the form again, with its error
    assert fifth.status_code == 429
    assert right.status_code == 429
    assert right["Retry-After"] == str(15 * 60)
    assert "Too many failed attempts" in right.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_lockout_is_per_user_and_address(client):
    make_user(username="chief", password=PASSWORD, is_staff=True)
    make_user(username="editor", password=PASSWORD, is_staff=True)
    for n in range(5):
        _login(client, "chief", f"wrong-{n}")

    other_user = _login(client, "editor", PASSWORD)
    other_address = _login(Client(REMOTE_ADDR="127.0.0.2"), "chief", PASSWORD)

    assert other_user.status_code == 302
    assert other_address.status_code == 302


def test_an_admin_unlocks_by_deleting_the_attempt_in_the_admin(client):
    make_user(username="chief", password=PASSWORD, is_staff=True)
    for n in range(5):
        _login(client, "chief", f"wrong-{n}")
    attempt = AccessAttempt.objects.get(username="chief")
    admin = Client()
    admin.force_login(make_user(is_staff=True, is_superuser=True))

    listing = admin.get("/admin/axes/accessattempt/")
    admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )

    assert "chief" in listing.content.decode()
    assert not AccessAttempt.objects.exists()
    assert _login(client, "chief", PASSWORD).status_code == 302


def test_the_reset_command_unlocks_a_user(client):
    make_user(username="chief", password=PASSWORD, is_staff=True)
    for n in range(5):
        _login(client, "chief", f"wrong-{n}")

    call_command("axes_reset_username", "chief", stdout=io.StringIO())

    assert _login(client, "chief", PASSWORD).status_code == 302


def test_a_success_before_the_limit_clears_the_count(client):
    make_user(username="chief", password=PASSWORD, is_staff=True)
    for n in range(4):
        _login(client, "chief", f"wrong-{n}")
    assert _login(client, "chief", PASSWORD).status_code == 302
    client.logout()

    again = [_login(client, "chief", f"wrong-{n}").status_code for n in range(4)]

    assert again == [200, 200, 200, 200]


def test_failed_token_authentication_locks_out_the_address_for_that_user(api):
    user = make_user(username="newsbot", perms=["feed.add_source"])
    _token, key = token_create(user=user, name="bot")
    wrong = key[:14] + ("0" if key[14] != "0" else "1") + key[15:]
    api.credentials(HTTP_AUTHORIZATION=f"Token {wrong}")
    statuses = [api.get("/api/v1/sources/").status_code for _ in range(5)]

    locked = api.get("/api/v1/sources/")

    assert statuses == [401, 401, 401, 401, 429]
    assert locked.status_code == 429
    assert locked["Retry-After"] == str(15 * 60)
    body = locked.json()
    assert (body["status"], body["code"], body["fields"]) == (429, "locked_out", {})
    assert body["message"].startswith("Too many failed attempts")
    assert AccessAttempt.objects.get().username == "newsbot"


def test_the_right_key_still_works_from_a_locked_address(api):
    """Nobody guesses 160 random bits: only the guessing is stopped, not the owner."""
    user = make_user(perms=["feed.add_source"])
    _token, key = token_create(user=user, name="bot")
    api.credentials(HTTP_AUTHORIZATION="Token " + key[:-1] + ("0" if key[-1] != "0" else "1"))
    for _ in range(5):
        api.get("/api/v1/sources/")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert api.get("/api/v1/sources/").status_code == 200


def test_random_keys_from_one_address_lock_that_address_out_of_unknown_keys(api):
    statuses = []
    for n in range(6):
        api.credentials(HTTP_AUTHORIZATION=f"Token aitop_{n:040x}")
        statuses.append(api.get("/api/v1/sources/").status_code)

    assert statuses == [401, 401, 401, 401, 429, 429]


def test_a_token_lockout_leaves_other_addresses_alone(api):
    for n in range(5):
        api.credentials(HTTP_AUTHORIZATION=f"Token aitop_{n:040x}")
        api.get("/api/v1/sources/")
    from rest_framework.test import APIClient

    elsewhere = APIClient(REMOTE_ADDR="127.0.0.9")
    elsewhere.credentials(HTTP_AUTHORIZATION=f"Token aitop_{9:040x}")

    assert api.get("/api/v1/sources/").status_code == 429
    assert elsewhere.get("/api/v1/sources/").status_code == 401
