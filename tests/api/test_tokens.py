"""API tokens: shown once, stored hashed, named, expiring, revocable, last use recorded."""

import datetime
import hashlib
import io
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from api.models import ApiToken
from api.tokens import token_create, token_revoke
from tests.factories import make_source, make_user

pytestmark = pytest.mark.django_db


def _get_sources(api, key):
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api.post("/api/v1/sources/", {"name": "Bot", "slug": "bot"}, format="json")


def test_a_new_token_is_stored_only_as_a_digest_behind_its_prefix():
    user = make_user()

    token, key = token_create(user=user, name="newsbot")

    assert re.fullmatch(r"aitop_[0-9a-f]{40}", key)
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.prefix == key[6:14]
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {stored.name, stored.prefix, stored.digest}


def test_a_token_authenticates_and_records_when_it_was_used(api, clock):
    user = make_user(perms=["feed.add_source"])
    token, key = token_create(user=user, name="newsbot")

    response = _get_sources(api, key)

    assert response.status_code == 201
    token.refresh_from_db()
    assert token.last_used_at == clock.now


def test_last_use_is_written_at_most_once_a_minute(api, clock):
    user = make_user()
    token, key = token_create(user=user, name="reader")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    api.get("/api/v1/sources/")
    first = clock.now
    clock.move(datetime.timedelta(seconds=30))

    api.get("/api/v1/sources/")

    token.refresh_from_db()
    assert token.last_used_at == first


def test_an_expired_token_is_refused_and_nothing_is_written(api, clock):
    user = make_user(perms=["feed.add_source"])
    _token, key = token_create(
        user=user, name="short", expires_at=clock.now + datetime.timedelta(days=1)
    )
    clock.move(datetime.timedelta(days=1, seconds=1))

    response = _get_sources(api, key)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    from feed.models import Source

    assert not Source.objects.filter(slug="bot").exists()


def test_a_revoked_token_is_refused(api):
    user = make_user(perms=["feed.add_source"])
    token, key = token_create(user=user, name="old")

    assert token_revoke(token=token) is True
    assert token_revoke(token=token) is False
    response = _get_sources(api, key)

    assert response.status_code == 401


def test_a_key_with_a_known_prefix_but_wrong_secret_is_refused(api):
    user = make_user(perms=["feed.add_source"])
    _token, key = token_create(user=user, name="bot")
    forged = key[:14] + ("0" if key[14] != "0" else "1") + key[15:]

    response = _get_sources(api, forged)

    assert response.status_code == 401


def test_the_command_prints_the_key_once_and_it_works(api):
    make_user(username="newsbot", perms=["feed.add_source"])
    out, err = io.StringIO(), io.StringIO()

    call_command("api_token", "create", "newsbot", "--name", "ci", stdout=out, stderr=err)

    key = out.getvalue().strip()
    assert re.fullmatch(r"aitop_[0-9a-f]{40}", key)
    assert "copy the key now" in err.getvalue()
    token = ApiToken.objects.get()
    assert (token.name, token.user.username, token.expires_at) == ("ci", "newsbot", None)
    assert _get_sources(api, key).status_code == 201


def test_the_command_lists_without_keys_and_revokes_by_prefix():
    user = make_user(username="newsbot")
    token, key = token_create(user=user, name="ci")
    listing = io.StringIO()

    call_command("api_token", "list", stdout=listing)
    call_command("api_token", "revoke", token.prefix, stdout=io.StringIO())

    assert listing.getvalue().split("  ")[:4] == [token.prefix, "newsbot", "ci", "active"]
    assert key not in listing.getvalue()
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_command_refuses_an_unknown_user():
    with pytest.raises(CommandError, match="No user named 'ghost'"):
        call_command("api_token", "create", "ghost")
    assert not ApiToken.objects.exists()


def test_admin_revokes_tokens_with_an_action(client):
    admin = make_user(is_staff=True, is_superuser=True)
    token, _key = token_create(user=make_user(), name="bot")
    client.force_login(admin)

    client.post(
        "/admin/api/apitoken/", {"action": "revoke", "_selected_action": [token.pk]}, follow=True
    )

    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_admin_never_shows_a_key_after_creation(client):
    admin = make_user(is_staff=True, is_superuser=True)
    token, key = token_create(user=make_user(), name="bot")
    client.force_login(admin)

    page = client.get(f"/admin/api/apitoken/{token.pk}/change/").content.decode()

    assert token.prefix in page
    assert key not in page
    assert token.digest not in page


def test_existing_drf_tokens_are_migrated_hashed_and_the_plain_copies_deleted():
    """The data migration, run forwards on a DRF token made before it."""
    from importlib import import_module

    from django.apps import apps
    from rest_framework.authtoken.models import Token

    user = make_user(perms=["feed.add_source"])
    legacy = Token.objects.create(user=user)
    migration = import_module("api.migrations.0002_hardening_migrate_drf_tokens")

    migration.forwards(apps, None)

    assert not Token.objects.exists()
    token = ApiToken.objects.get(user=user)
    assert token.prefix == legacy.key[:8]
    assert token.digest == hashlib.sha256(legacy.key.encode()).hexdigest()
    from rest_framework.test import APIClient

    api = APIClient()
    assert _get_sources(api, legacy.key).status_code == 201


def test_sources_stay_unchanged_when_authentication_fails(api):
    make_source(slug="lab")
    api.credentials(HTTP_AUTHORIZATION="Token aitop_" + "0" * 40)

    response = api.delete("/api/v1/sources/lab/")

    assert response.status_code == 401
    from feed.models import Source

    assert Source.objects.filter(slug="lab").exists()
