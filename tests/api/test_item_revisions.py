"""PATCH of a live item: an editor's change to its text is a 202 proposal; a chief's applies."""

import pytest

from feed.models import Item
from feed.revisions import ItemRevision
from tests.factories import make_chief_editor, make_editor, make_item

pytestmark = pytest.mark.django_db

URL = "https://news.example/stories/1"


def live_item(**kwargs) -> Item:
    kwargs.setdefault("url", URL)
    kwargs.setdefault("status", "featured")
    kwargs.setdefault("title", "The headline readers see")
    kwargs.setdefault("summary", "The summary readers see.")
    return make_item(**kwargs)


def test_an_editors_api_patch_of_a_live_item_is_a_202_with_the_proposal(token_client):
    editor = make_editor()
    item = live_item()

    response = token_client(editor).patch(
        f"/api/v1/items/{item.pk}/",
        {"version": item.version, "summary": "A new summary", "heat": 77},
        format="json",
    )

    item.refresh_from_db()
    assert response.status_code == 202
    body = response.json()
    assert (body["summary"], body["heat"]) == ("The summary readers see.", 77)
    revision = ItemRevision.objects.get(item=item)
    assert body["proposed_revision"]["id"] == revision.pk
    assert body["proposed_revision"]["fields"] == ["summary"]
    assert (revision.origin, revision.status, revision.proposed_by) == ("api", "pending", editor)


def test_a_chief_edits_a_live_item_directly(token_client):
    chief = make_chief_editor()
    item = live_item()

    response = token_client(chief).patch(
        f"/api/v1/items/{item.pk}/", {"version": item.version, "title": "Fixed"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["title"] == "Fixed"
    assert not ItemRevision.objects.exists()
