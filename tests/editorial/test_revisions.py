"""Editors propose changes to live items in the admin; only a chief accepts or declines."""

import datetime

import pytest

from editorial.edits import item_edit
from editorial.errors import NotPermitted, TransitionNotAllowed
from editorial.models import ItemLogEntry
from editorial.revisions import revision_accept, revision_decline
from feed.models import Item
from feed.revisions import ItemRevision
from tests.editorial.test_admin_form import form_data
from tests.factories import make_chief_editor, make_editor, make_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)
URL = "https://news.example/stories/1"


def live_item(**kwargs) -> Item:
    kwargs.setdefault("url", URL)
    kwargs.setdefault("guid", URL)
    kwargs.setdefault("status", "featured")
    kwargs.setdefault("title", "The headline readers see")
    kwargs.setdefault("summary", "The summary readers see.")
    return make_item(**kwargs)


def revisions(item: Item) -> list[tuple]:
    return list(
        ItemRevision.objects.filter(item=item)
        .order_by("id")
        .values_list("origin", "status", "changes", "proposed_by_name")
    )


def test_an_editors_admin_edit_of_a_live_title_is_proposed_and_heat_applies(client):
    editor = make_editor()
    item = live_item(heat=10)
    client.force_login(editor)
    data = form_data(client, item, title="An editor's better headline", heat="77")

    response = client.post(
        f"/admin/feed/item/{item.pk}/change/", data, follow=True, headers={"accept-language": "en"}
    )

    item.refresh_from_db()
    assert item.title == "The headline readers see"
    assert item.heat == 77
    assert revisions(item) == [
        ("editor", "pending", {"title": "An editor's better headline"}, editor.username)
    ]
    assert "“The headline readers see” is live: your change to title waits for a chief editor." in [
        str(m) for m in response.context["messages"]
    ]


def test_a_chief_accepts_a_proposal_the_page_shows_it_and_history_names_both(client):
    editor, chief = make_editor(), make_chief_editor()
    item = live_item()
    proposed = item_edit(
        item=item, by=editor, changes={"title": "Better headline"}, expected_version=1
    ).proposal

    revision_accept(revision=proposed, by=chief, now=NOW)

    item.refresh_from_db()
    assert item.title == "Better headline"
    assert "Better headline" in client.get(item.get_absolute_url()).content.decode()
    proposed.refresh_from_db()
    assert (proposed.status, proposed.decided_by) == ("accepted", chief)
    entry = ItemLogEntry.objects.get(item=item, action="accept")
    assert (entry.by, entry.changed_fields) == (chief, ["title"])
    assert editor.username in entry.note
    assert "title" in item.edited_fields


def test_an_editor_may_not_accept_and_nothing_changes():
    editor = make_editor()
    item = live_item()
    proposed = item_edit(
        item=item, by=editor, changes={"title": "Better headline"}, expected_version=1
    ).proposal

    with pytest.raises(NotPermitted):
        revision_accept(revision=proposed, by=editor)

    item.refresh_from_db()
    proposed.refresh_from_db()
    assert (item.title, proposed.status) == ("The headline readers see", "pending")
    assert not ItemLogEntry.objects.filter(action="accept").exists()


def test_a_declined_proposal_cannot_be_accepted_later():
    editor, chief = make_editor(), make_chief_editor()
    item = live_item()
    proposed = item_edit(
        item=item, by=editor, changes={"title": "Better headline"}, expected_version=1
    ).proposal
    revision_decline(revision=proposed, by=chief, note="Too long")

    with pytest.raises(TransitionNotAllowed):
        revision_accept(revision=proposed, by=chief)

    item.refresh_from_db()
    assert item.title == "The headline readers see"
    assert ItemLogEntry.objects.get(item=item, action="decline").note.endswith("Too long")
