"""The browsable API for logged-in staff; JSON for everyone else; tokens managed in the admin."""

import re

import pytest

from api.models import ApiToken
from tests.factories import make_source, make_user

pytestmark = pytest.mark.django_db


def test_logged_in_staff_browse_the_api_as_html(client):
    make_source(name="Lab blog", slug="lab-blog")
    client.force_login(make_user(is_staff=True))

    response = client.get("/api/v1/sources/", HTTP_ACCEPT="text/html")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "Lab blog" in response.content.decode()


def test_anonymous_browser_gets_json_not_the_browsable_page(client):
    make_source(name="Lab blog", slug="lab-blog")

    response = client.get("/api/v1/sources/", HTTP_ACCEPT="text/html,application/json;q=0.9")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


def test_logged_in_non_staff_get_json_too(client):
    client.force_login(make_user(is_staff=False))

    response = client.get("/api/v1/sources/", HTTP_ACCEPT="text/html,*/*;q=0.8")

    assert response["Content-Type"] == "application/json"


def test_admin_creates_a_token_that_then_authenticates(client, api):
    admin = make_user(is_staff=True, is_superuser=True)
    integration = make_user(username="newsbot", perms=["feed.add_source"])
    client.force_login(admin)

    listing = client.get("/admin/api/apitoken/")
    added = client.post(
        "/admin/api/apitoken/add/", {"user": integration.pk, "name": "bot"}, follow=True
    )

    assert listing.status_code == 200
    assert added.status_code == 200
    messages = " ".join(str(m) for m in added.context["messages"])
    [key] = re.findall(r"aitop_[0-9a-f]{40}", messages)
    token = ApiToken.objects.get(user=integration)
    assert token.name == "bot"
    assert token.prefix == key[6:14]
    assert key not in token.digest
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    created = api.post("/api/v1/sources/", {"name": "Bot", "slug": "bot"}, format="json")
    assert created.status_code == 201
