"""Writing items: submissions land as drafts, edits check the version, moves use the workflow."""

import pytest

from feed.models import Item
from tests.factories import make_chief_editor, make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db

SUBMISSION = {
    "source": "lab",
    "title": "A new model from the lab",
    "url": "https://lab.example/posts/new-model?utm_source=newsletter",
    "summary": "What it does, briefly.",
    "category": "model",
    "tags": ["大模型", "agents"],
}


@pytest.fixture
def lab(db):
    return make_source(name="Lab", slug="lab", kind="blog")


def test_editor_token_submits_an_item_that_lands_as_a_draft(token_client, lab, api):
    editor = make_editor()

    response = token_client(editor).post("/api/v1/items/", SUBMISSION, format="json")

    assert response.status_code == 201
    body = response.json()
    item = Item.objects.get(pk=body["id"])
    assert item.status == Item.Status.DRAFT
    assert item.published_at is None
    assert item.submitted_by == editor
    assert item.url == "https://lab.example/posts/new-model"
    assert sorted(tag.name for tag in item.tags.all()) == ["agents", "大模型"]
    assert body["status"] == "draft"
    assert response["Location"] == f"http://testserver/api/v1/items/{item.pk}/"
    # Nobody else sees it until a chief editor publishes it.
    assert api.get(f"/api/v1/items/{item.pk}/").status_code == 404
    assert api.get("/api/v1/items/").json()["results"] == []


def test_submitting_a_url_that_exists_is_a_409_naming_the_item(token_client, lab):
    existing = make_item(source=lab, url="https://lab.example/posts/new-model")

    response = token_client(make_editor()).post("/api/v1/items/", SUBMISSION, format="json")

    assert response.status_code == 409
    assert response.json() == {
        "status": 409,
        "code": "duplicate_url",
        "message": "An item with this URL exists already.",
        "fields": {},
        "existing_id": existing.pk,
    }
    assert Item.objects.count() == 1


def test_bad_fields_are_a_400_with_a_message_for_each(token_client, lab):
    response = token_client(make_editor()).post(
        "/api/v1/items/",
        {"source": "nowhere", "url": "not a url", "kind": "podcast", "heat": 300},
        format="json",
    )

    assert response.status_code == 400
    fields = response.json()["fields"]
    assert set(fields) == {"source", "title", "url", "kind", "heat"}
    assert fields["title"] == ["This field is required."]
    assert fields["heat"] == ["Ensure this value is less than or equal to 100."]
    assert Item.objects.count() == 0


def test_status_cannot_be_set_by_a_submission(token_client, lab):
    response = token_client(make_editor()).post(
        "/api/v1/items/", {**SUBMISSION, "status": "published"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["fields"] == {"status": ["This field cannot be written here."]}
    assert Item.objects.count() == 0


def test_missing_fields_are_named(token_client, lab):
    response = token_client(make_editor()).post("/api/v1/items/", {}, format="json")

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "source": ["This field is required."],
        "title": ["This field is required."],
        "url": ["This field is required."],
    }


def test_patch_with_the_version_read_changes_the_item(token_client, lab):
    item = make_item(source=lab, title="Old title", status="draft")
    client = token_client(make_editor())
    version = client.get(f"/api/v1/items/{item.pk}/").json()["version"]

    response = client.patch(
        f"/api/v1/items/{item.pk}/", {"version": version, "title": "New title"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["title"] == "New title"
    assert response.json()["version"] == version + 1
    item.refresh_from_db()
    assert item.title == "New title"


def test_patch_with_a_stale_version_is_a_409_and_changes_nothing(token_client, lab):
    item = make_item(source=lab, title="Old title", status="draft")
    first, second = token_client(make_editor()), token_client(make_editor())
    first.patch(f"/api/v1/items/{item.pk}/", {"version": 1, "title": "First"}, format="json")

    response = second.patch(
        f"/api/v1/items/{item.pk}/", {"version": 1, "summary": "Second"}, format="json"
    )

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "stale_version"
    assert body["current_version"] == 2
    assert body["changed_fields"] == ["title"]
    item.refresh_from_db()
    assert (item.title, item.summary) == ("First", "")


def test_patch_needs_the_version(token_client, lab):
    item = make_item(source=lab)

    response = token_client(make_editor()).patch(
        f"/api/v1/items/{item.pk}/", {"title": "x"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["fields"] == {"version": ["This field is required."]}


def test_patch_to_another_items_url_is_a_409(token_client, lab):
    other = make_item(source=lab, url="https://lab.example/a")
    item = make_item(source=lab, url="https://lab.example/b")

    response = token_client(make_editor()).patch(
        f"/api/v1/items/{item.pk}/", {"version": 1, "url": "https://lab.example/a"}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["existing_id"] == other.pk


# The permission matrix: who may do what, and what the others are told.
MOVES = {
    "publish": ("draft", {}, "published"),
    "feature": ("published", {}, "featured"),
    "unfeature": ("featured", {}, "published"),
    "reject": ("published", {"reason": "Duplicate of another story."}, "rejected"),
    "restore": ("rejected", {}, "draft"),
}


@pytest.mark.parametrize("move", MOVES)
def test_anonymous_callers_may_not_move_items(api, move):
    start, body, _ = MOVES[move]
    item = make_item(status=start)

    response = api.post(f"/api/v1/items/{item.pk}/{move}/", body, format="json")

    assert response.status_code == 401
    item.refresh_from_db()
    assert item.status == start


@pytest.mark.parametrize("make_caller", [make_user, make_editor], ids=["reader", "editor"])
@pytest.mark.parametrize("move", MOVES)
def test_readers_and_editors_are_refused_moves_with_the_reason(token_client, make_caller, move):
    start, body, _ = MOVES[move]
    item = make_item(status=start)

    response = token_client(make_caller()).post(
        f"/api/v1/items/{item.pk}/{move}/", body, format="json"
    )

    assert response.status_code == 403
    assert response.json()["message"] == f"You are not allowed to {move} items."
    item.refresh_from_db()
    assert item.status == start


@pytest.mark.parametrize("move", MOVES)
def test_chief_editor_makes_every_move(token_client, move):
    start, body, end = MOVES[move]
    item = make_item(status=start)

    response = token_client(make_chief_editor()).post(
        f"/api/v1/items/{item.pk}/{move}/", body, format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json()["status"] == end
    item.refresh_from_db()
    assert item.status == end


@pytest.mark.parametrize(
    ("move", "start"),
    [
        ("publish", "published"),
        ("unfeature", "published"),
        ("restore", "draft"),
        ("feature", "rejected"),
    ],
)
def test_a_move_the_status_does_not_allow_is_a_409(token_client, move, start):
    item = make_item(status=start)

    response = token_client(make_chief_editor()).post(
        f"/api/v1/items/{item.pk}/{move}/", {}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["code"] == "not_allowed"
    item.refresh_from_db()
    assert item.status == start


def test_reject_without_a_reason_is_a_400(token_client):
    item = make_item()

    response = token_client(make_chief_editor()).post(
        f"/api/v1/items/{item.pk}/reject/", {}, format="json"
    )

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["reason"]
    item.refresh_from_db()
    assert item.status == "published"


def test_publish_at_a_later_time_schedules_the_item(token_client, api, clock):
    item = make_item(status="draft")

    response = token_client(make_chief_editor()).post(
        f"/api/v1/items/{item.pk}/publish/", {"at": "2026-06-21T08:00:00+08:00"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["published_at"] == "2026-06-21T08:00:00+08:00"
    assert api.get(f"/api/v1/items/{item.pk}/").status_code == 404


def test_transition_on_a_missing_item_is_a_404_for_a_chief(token_client):
    response = token_client(make_chief_editor()).post("/api/v1/items/999999/publish/", {})

    assert response.status_code == 404
