"""`item_edit`: editors' changes, checked against the version they were based on."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from editorial.edits import item_create, item_edit
from editorial.errors import EditConflict, FieldNotEditable, NotPermitted
from editorial.models import ItemLogEntry
from editorial.workflow import item_publish
from feed.identity import DuplicateURL
from feed.models import Item
from tests.editorial.helpers import item_state
from tests.factories import make_chief_editor, make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 6, 19, 1, 50, tzinfo=datetime.UTC)


def test_an_edit_changes_the_fields_bumps_the_version_and_marks_them_edited():
    editor = make_editor(username="lin")
    item = make_item(status="draft", title="Lumen 3 relased", summary="Old", tags=["大模型"])

    edited = item_edit(
        item=item,
        by=editor,
        changes={"title": "Lumen-3 released", "summary": "Old", "tags": ["大模型", "推理"]},
        expected_version=1,
        now=NOW,
    )

    assert (edited.title, edited.summary, edited.version) == ("Lumen-3 released", "Old", 2)
    assert sorted(edited.tags.names()) == ["大模型", "推理"]
    assert edited.edited_fields == ["tags", "title"]
    entry = ItemLogEntry.objects.get(item=item)
    assert (entry.action, entry.by_name, entry.at, entry.version) == ("edit", "lin", NOW, 2)
    assert entry.changed_fields == ["tags", "title"]


def test_edited_fields_accumulate_over_edits():
    editor = make_editor()
    item = make_item(status="draft")

    item_edit(item=item, by=editor, changes={"heat": 40}, expected_version=1)
    item_edit(item=item, by=editor, changes={"category": "tip"}, expected_version=2)

    assert Item.objects.get(pk=item.pk).edited_fields == ["category", "heat"]


def test_an_edit_that_changes_nothing_writes_nothing():
    item = make_item(status="draft", title="Same")
    before = item_state(item)

    item_edit(item=item, by=make_editor(), changes={"title": "Same"}, expected_version=1)

    assert item_state(item) == before


def test_a_save_based_on_an_old_version_is_refused_naming_who_changed_it_and_when():
    item = make_item(status="draft", title="First title")
    item_edit(
        item=item,
        by=make_editor(username="mei"),
        changes={"title": "Mei's title"},
        expected_version=1,
        now=NOW,
    )
    before = item_state(item)

    with translation.override("en"), pytest.raises(EditConflict) as conflict:
        item_edit(
            item=item,
            by=make_editor(username="lin"),
            changes={"title": "Lin's title"},
            expected_version=1,
        )

    # 01:50 UTC is 09:50 in Shanghai, the site's time zone.
    assert conflict.value.message == (
        "mei changed title at June 19, 2026, 09:50, after you opened this item."
    )
    assert conflict.value.current_version == 2
    assert conflict.value.changed_fields == ["title"]
    assert item_state(item) == before


def test_a_conflict_with_a_move_names_the_move():
    item = make_item(status="draft")
    item_publish(item=item, by=make_chief_editor(username="zhou"), now=NOW)

    with translation.override("en"), pytest.raises(EditConflict) as conflict:
        item_edit(item=item, by=make_editor(), changes={"heat": 90}, expected_version=1)

    assert conflict.value.message.startswith("zhou published it at June 19, 2026")


def test_a_conflict_with_an_unlogged_write_blames_the_fetcher():
    item = make_item(status="draft")
    Item.objects.filter(pk=item.pk).update(version=2, summary="Refreshed from the feed")

    with translation.override("en"), pytest.raises(EditConflict) as conflict:
        item_edit(item=item, by=make_editor(), changes={"heat": 90}, expected_version=1)

    assert conflict.value.message.startswith("the feed fetcher updated it at ")


@pytest.mark.parametrize("field", ["status", "published_at", "reviewed_by", "version", "clicks"])
def test_fields_outside_the_editable_set_are_refused(field):
    item = make_item(status="draft")
    before = item_state(item)

    with pytest.raises(FieldNotEditable):
        item_edit(item=item, by=make_editor(), changes={field: None}, expected_version=1)

    assert item_state(item) == before


def test_a_user_without_change_permission_cannot_edit():
    item = make_item(status="draft")
    before = item_state(item)

    with pytest.raises(NotPermitted):
        item_edit(item=item, by=make_user(), changes={"title": "Mine"}, expected_version=1)

    assert item_state(item) == before


def test_an_edit_never_changes_the_status():
    item = make_item(status="draft")

    edited = item_edit(item=item, by=make_editor(), changes={"title": "New"}, expected_version=1)

    assert edited.status == "draft"


def test_values_the_model_refuses_are_refused_and_nothing_is_written():
    item = make_item(status="draft")
    before = item_state(item)

    with pytest.raises(ValidationError) as refused:
        item_edit(
            item=item,
            by=make_editor(),
            changes={"heat": 140, "url": "ftp://news.example/file"},
            expected_version=1,
        )

    assert set(refused.value.message_dict) >= {"url"}
    assert item_state(item) == before


def test_a_url_another_item_has_is_refused_in_any_spelling():
    taken = make_item(url="https://news.example/taken")
    item = make_item(status="draft")
    before = item_state(item)

    with pytest.raises(DuplicateURL) as refused:
        item_edit(
            item=item,
            by=make_editor(),
            changes={"url": "HTTPS://News.Example/taken?utm_source=x"},
            expected_version=1,
        )

    assert refused.value.existing_id == taken.pk
    assert item_state(item) == before


def test_an_edited_url_is_stored_without_its_tracking_parameters():
    item = make_item(status="draft")

    edited = item_edit(
        item=item,
        by=make_editor(),
        changes={"url": "https://news.example/story?id=3&utm_source=newsletter"},
        expected_version=1,
    )

    assert edited.url == "https://news.example/story?id=3"


def test_an_item_created_by_hand_is_stored_without_its_tracking_parameters():
    source = make_source()

    created = item_create(
        by=make_editor(),
        fields={
            "source": source,
            "title": "By hand",
            "url": "https://news.example/hand?fbclid=abc",
        },
    )

    assert created.url == "https://news.example/hand"


def test_an_edited_body_is_sanitised():
    item = make_item(status="draft")

    edited = item_edit(
        item=item,
        by=make_editor(),
        changes={"body": '<p onclick="steal()">Hi<script>alert(1)</script></p>'},
        expected_version=1,
    )

    assert edited.body == "<p>Hi</p>"


def test_changing_the_source_is_an_edit():
    item = make_item(status="draft")
    other = make_source(name="Other")

    edited = item_edit(item=item, by=make_editor(), changes={"source": other}, expected_version=1)

    assert edited.source == other
    assert edited.edited_fields == ["source"]


def test_an_item_added_by_hand_is_a_draft_with_its_fields_marked_edited():
    editor = make_editor(username="lin")
    source = make_source(kind="news")

    item = item_create(
        by=editor,
        fields={
            "source": source,
            "title": "Written by hand",
            "url": "https://news.example/by-hand",
            "summary": "",
            "tags": ["政策"],
        },
    )

    assert (item.status, item.kind, item.submitted_by, item.version) == ("draft", "news", editor, 1)
    assert item.edited_fields == ["source", "tags", "title", "url"]
    assert list(item.tags.names()) == ["政策"]
    assert ItemLogEntry.objects.get(item=item).action == "create"
