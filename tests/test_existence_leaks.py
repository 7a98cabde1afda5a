"""Nothing tells an outsider that a hidden item or a draft-only tag exists."""

import json

import pytest

from api.tokens import token_create
from tests.factories import make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db


def _token_client(user):
    from rest_framework.test import APIClient

    _token, key = token_create(user=user, name="tests")
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


SUBMISSION = {"source": "lab", "title": "Copy", "url": "https://lab.example/secret-draft"}


def test_a_409_does_not_name_a_draft_to_a_submitter_who_cannot_read_it():
    lab = make_source(slug="lab")
    make_item(source=lab, url="https://lab.example/secret-draft", status="draft")
    outsider = make_user(perms=["feed.add_item"])

    response = _token_client(outsider).post("/api/v1/items/", SUBMISSION, format="json")

    assert response.status_code == 409
    assert response.json() == {
        "status": 409,
        "code": "duplicate_url",
        "message": "An item with this URL exists already.",
        "fields": {},
    }


def test_a_409_names_the_item_to_an_editor_who_may_read_it():
    lab = make_source(slug="lab")
    draft = make_item(source=lab, url="https://lab.example/secret-draft", status="draft")

    response = _token_client(make_editor()).post("/api/v1/items/", SUBMISSION, format="json")

    assert response.json()["existing_id"] == draft.pk


def test_a_409_names_a_published_item_to_anyone_who_submits():
    lab = make_source(slug="lab")
    item = make_item(source=lab, url="https://lab.example/secret-draft")
    outsider = make_user(perms=["feed.add_item"])

    response = _token_client(outsider).post("/api/v1/items/", SUBMISSION, format="json")

    assert response.json()["existing_id"] == item.pk


@pytest.mark.parametrize(
    "path",
    ["/?tag={slug}", "/feed.xml?tag={slug}", "/feed.atom?tag={slug}", "/feed.json?tag={slug}"],
)
def test_a_tag_only_drafts_carry_is_answered_like_an_unknown_tag(client, path):
    make_item(title="Visible", tags=["公开"])
    make_item(title="Hidden draft", status="draft", tags=["Project Nightingale"])
    from taggit.models import Tag

    secret = Tag.objects.get(name="Project Nightingale").slug
    Tag.objects.create(name="Unused", slug="zz-unknown")

    draft_only = client.get(path.format(slug=secret))
    unknown = client.get(path.format(slug="zz-unknown"))

    text = draft_only.content.decode()
    assert draft_only.status_code == unknown.status_code == 200
    assert "Project Nightingale" not in text
    assert "Hidden draft" not in text
    # The two answers differ only by the slug asked for (and per-request tokens).
    assert _normalised(text, secret) == _normalised(unknown.content.decode(), "zz-unknown")


def _normalised(text: str, slug: str) -> str:
    import re
    from urllib.parse import quote

    text = text.replace(quote(slug), "SLUG").replace(slug, "SLUG")
    text = re.sub(r'nonce="[^"]+"', "", text)
    text = re.sub(r"csrfmiddlewaretoken\" value=\"[^\"]+\"", "", text)
    text = re.sub(r"0x[0-9a-f]+", "", text)  # an object's repr in the RSS <language> (a bug)
    text = re.sub(r"\w{3}, \d\d \w{3} \d{4} [\d:]{8} [+-]\d{4}", "TIME", text)  # RSS dates
    return re.sub(r"\d{4}-\d\d-\d\dT[\d:.+-]+", "TIME", text)


def test_the_old_tag_address_of_a_draft_only_tag_names_nothing(client):
    make_item(title="Hidden draft", status="draft", tags=["Project Nightingale"])
    from taggit.models import Tag

    secret = Tag.objects.get().slug

    response = client.get(f"/tags/{secret}/", follow=True)

    assert response.status_code == 200
    assert "Project Nightingale" not in response.content.decode()


def test_the_name_of_a_tag_that_a_visible_item_carries_is_shown(client):
    make_item(title="Visible", tags=["公开"])
    from taggit.models import Tag

    response = client.get(f"/?tag={Tag.objects.get().slug}")

    assert "公开" in response.content.decode()


@pytest.mark.parametrize("depth", [40, 2000, 100_000])
def test_json_nested_deeply_is_a_400_in_the_error_shape(depth):
    user = make_user(perms=["feed.add_item"])
    body = '{"title": ' + "[" * depth + "]" * depth + "}"
    client = _token_client(user)

    response = client.post("/api/v1/items/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "parse_error",
        "message": "JSON nested deeper than 32 levels.",
        "fields": {},
    }


def test_json_within_the_depth_limit_is_read():
    from api.parsers import json_depth_check

    json_depth_check(json.loads("[" * 32 + "]" * 32))


def test_an_unexpected_error_in_the_api_is_a_500_in_the_error_shape(monkeypatch):
    from rest_framework.test import APIClient

    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    from api.views.sources import SourceViewSet

    def explode(self, request, *args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(SourceViewSet, "list", explode)

    response = api.get("/api/v1/sources/")

    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "status": 500,
        "code": "server_error",
        "message": "Something went wrong on our side; it has been logged.",
        "fields": {},
    }
