"""Sources through the API: anyone reads the active ones, staff with the permission write."""

import pytest

from feed.models import Source
from tests.factories import make_item, make_source, make_user

pytestmark = pytest.mark.django_db


def test_anonymous_caller_lists_active_sources_by_name(api):
    make_source(name="Beta", slug="beta")
    make_source(name="Alpha", slug="alpha", kind="paper", handle="@alpha")
    make_source(name="Hidden", slug="hidden", is_active=False)

    response = api.get("/api/v1/sources/")

    assert response.status_code == 200
    body = response.json()
    assert [source["slug"] for source in body["results"]] == ["alpha", "beta"]
    assert body["results"][0] == {
        "id": Source.objects.get(slug="alpha").pk,
        "slug": "alpha",
        "name": "Alpha",
        "kind": "paper",
        "handle": "@alpha",
        "homepage_url": "",
        "feed_url": body["results"][0]["feed_url"],
        "default_category": "",
        "weight": 50,
        "is_active": True,
        "page_url": "http://testserver/?source=alpha",
    }
    assert body["next"] is None and body["previous"] is None


def test_inactive_source_is_a_404_for_anonymous_callers_but_not_for_staff(api, token_client):
    make_source(name="Hidden", slug="hidden", is_active=False)
    staff = make_user(perms=["feed.view_source"])

    assert api.get("/api/v1/sources/hidden/").status_code == 404
    assert token_client(staff).get("/api/v1/sources/hidden/").json()["name"] == "Hidden"


def test_chinese_slug_reaches_its_source(api):
    make_source(name="机器之心", slug="机器之心")

    response = api.get("/api/v1/sources/机器之心/")

    assert response.status_code == 200
    assert response.json()["name"] == "机器之心"


def test_sources_page_by_cursor_without_repeats(api):
    for n in range(5):
        make_source(name=f"Source {n:02d}", slug=f"s{n}")

    first = api.get("/api/v1/sources/?page_size=2").json()
    second = api.get(first["next"]).json()
    third = api.get(second["next"]).json()
    back = api.get(third["previous"]).json()

    assert [s["slug"] for s in first["results"]] == ["s0", "s1"]
    assert [s["slug"] for s in second["results"]] == ["s2", "s3"]
    assert [s["slug"] for s in third["results"]] == ["s4"]
    assert third["next"] is None
    assert [s["slug"] for s in back["results"]] == ["s2", "s3"]


def test_anonymous_caller_cannot_add_a_source(api):
    response = api.post("/api/v1/sources/", {"name": "New", "slug": "new"}, format="json")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"
    assert not Source.objects.filter(slug="new").exists()


def test_reader_token_may_not_add_a_source(token_client):
    reader = make_user()

    response = token_client(reader).post(
        "/api/v1/sources/", {"name": "New", "slug": "new"}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert not Source.objects.filter(slug="new").exists()


def test_staff_with_permission_adds_and_changes_a_source(token_client):
    staff = make_user(perms=["feed.add_source", "feed.change_source", "feed.view_source"])
    client = token_client(staff)

    created = client.post(
        "/api/v1/sources/",
        {
            "name": "Lab blog",
            "slug": "lab-blog",
            "kind": "blog",
            "feed_url": "https://lab.example/rss",
        },
        format="json",
    )
    changed = client.patch("/api/v1/sources/lab-blog/", {"is_active": False}, format="json")

    assert created.status_code == 201
    assert created.json()["feed_url"] == "https://lab.example/rss"
    assert changed.status_code == 200
    assert Source.objects.get(slug="lab-blog").is_active is False


def test_bad_source_fields_are_400_with_a_message_per_field(token_client):
    make_source(slug="taken")
    staff = make_user(perms=["feed.add_source"])

    response = token_client(staff).post(
        "/api/v1/sources/",
        {"name": "", "slug": "taken", "kind": "podcast", "weight": 101},
        format="json",
    )

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert set(body["fields"]) == {"name", "slug", "kind", "weight"}


def test_source_with_items_cannot_be_deleted(token_client):
    source = make_source(slug="busy")
    make_item(source=source)
    staff = make_user(perms=["feed.delete_source", "feed.view_source"])

    response = token_client(staff).delete("/api/v1/sources/busy/")

    assert response.status_code == 409
    assert response.json()["code"] == "has_items"
    assert Source.objects.filter(slug="busy").exists()
