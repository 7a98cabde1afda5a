"""The item form: its buttons, forged requests, save-as-new and concurrent edits."""

import datetime
import re

import pytest
from django import forms
from django.utils import timezone

from editorial.admin.items import ItemAdmin
from editorial.edits import item_edit
from editorial.errors import EditConflict
from editorial.models import ItemLogEntry
from editorial.workflow import item_publish
from feed.models import Item
from tests.editorial.helpers import MAY_MOVE, ROLES, item_state, make_actor
from tests.factories import (
    make_chief_editor,
    make_editor,
    make_item,
    make_superuser,
    make_user,
)

pytestmark = pytest.mark.django_db

EN = {"accept-language": "en"}


def change_url(item: Item) -> str:
    return f"/admin/feed/item/{item.pk}/change/"


def form_data(client, item: Item, **changes) -> dict:
    """What the change form would post if submitted as rendered, with `changes` typed in."""
    response = client.get(change_url(item))
    form = response.context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        if isinstance(field, forms.SplitDateTimeField):
            data[f"{name}_0"] = data[f"{name}_1"] = ""
            continue
        value = form[name].value()
        data[name] = "" if value is None else value
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
        for inline_form in inline.formset.forms:
            for name in inline_form.fields:
                value = inline_form[name].value()
                if value is not None and value is not False:  # unticked boxes post nothing
                    data[inline_form.add_prefix(name)] = value
    data.update(changes)
    return data


def submit_buttons(html: str) -> set[str]:
    return set(re.findall(r'<input type="submit"[^>]*name="(_\w+)"', html))


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- buttons -------------------------------------------------------------------------


def test_an_editor_has_no_publish_or_feature_button(client):
    item = make_item(status="draft")
    client.force_login(make_editor())

    buttons = submit_buttons(client.get(change_url(item)).text)

    assert "_publish" not in buttons and "_feature" not in buttons
    assert {"_save", "_continue", "_nextdraft"} <= buttons


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("draft", {"_publish", "_feature"}),
        ("published", {"_feature"}),
        ("featured", set()),
        ("rejected", set()),
    ],
)
def test_a_chief_editor_gets_the_buttons_the_state_allows(client, status, expected):
    item = make_item(status=status)
    client.force_login(make_chief_editor())

    buttons = submit_buttons(client.get(change_url(item)).text)

    assert buttons & {"_publish", "_feature"} == expected


def test_save_and_feature_saves_the_edit_then_features_the_item(client):
    item = make_item(status="draft", title="Draft title")
    client.force_login(make_chief_editor(username="zhou"))

    response = client.post(
        change_url(item),
        form_data(client, item, title="Final title", _feature="Save and feature"),
        headers=EN,
        follow=True,
    )

    saved = Item.objects.get(pk=item.pk)
    assert (saved.title, saved.status, saved.reviewed_by.username) == (
        "Final title",
        "featured",
        "zhou",
    )
    assert list(ItemLogEntry.objects.filter(item=item).order_by("id").values_list("action")) == [
        ("edit",),
        ("feature",),
    ]
    assert "Featured 1 item." in messages_of(response)
    assert response.redirect_chain[-1][0] == "/admin/feed/item/"


def test_save_and_publish_with_a_time_to_come_schedules_the_item(client):
    item = make_item(status="draft")
    client.force_login(make_chief_editor())
    at = timezone.localtime() + datetime.timedelta(days=2)

    client.post(
        change_url(item),
        form_data(
            client,
            item,
            publish_at_0=at.strftime("%Y-%m-%d"),
            publish_at_1=at.strftime("%H:%M:%S"),
            _publish="Save and publish",
        ),
    )

    saved = Item.objects.get(pk=item.pk)
    assert saved.status == "published"
    assert saved.published_at == at.replace(microsecond=0)
    assert Item.objects.scheduled().filter(pk=item.pk).exists()
    assert not Item.objects.visible().filter(pk=item.pk).exists()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("button", "target"), [("_publish", "published"), ("_feature", "featured")]
)
def test_permission_matrix_of_the_form_buttons(client, role, button, target):
    item = make_item(status="draft")
    user = make_actor(role)
    viewer = make_superuser()
    client.force_login(viewer)
    data = form_data(client, item, **{button: "go"})
    client.logout()
    before = item_state(item)
    if user is not None:
        client.force_login(user)

    response = client.post(change_url(item), data, headers=EN, follow=True)

    if role in MAY_MOVE:
        assert Item.objects.get(pk=item.pk).status == target
        assert ItemLogEntry.objects.filter(item=item).count() == 1
    else:
        assert item_state(item) == before
        if user is None:
            assert response.redirect_chain[-1][0].startswith("/admin/login/")
        else:
            verb = "publish" if button == "_publish" else "feature"
            assert f"Saved, but not moved: You are not allowed to {verb} items." in (
                messages_of(response)
            )


# --- forged requests ------------------------------------------------------------------


def test_an_editor_posting_a_status_changes_nothing(client):
    item = make_item(status="draft")
    client.force_login(make_editor())
    data = form_data(
        client,
        item,
        status="published",
        published_at="2026-06-19 09:50",
        reviewed_by=1,
        version=99,
    )
    before = item_state(item)

    client.post(change_url(item), data)

    assert item_state(item) == before


def test_save_as_new_of_a_published_item_makes_a_draft(client):
    original = make_item(status="published", title="Live story", tags=["大模型"])
    editor = make_editor()
    client.force_login(editor)
    before = item_state(original)

    client.post(
        change_url(original),
        form_data(
            client,
            original,
            url="https://news.example/a-copy",
            _saveasnew="Save as new",
            status="published",
        ),
    )

    copy = Item.objects.get(url="https://news.example/a-copy")
    assert (copy.status, copy.published_at, copy.reviewed_by, copy.version) == (
        "draft",
        None,
        None,
        1,
    )
    assert (copy.title, list(copy.tags.names()), copy.submitted_by) == (
        "Live story",
        ["大模型"],
        editor,
    )
    assert ItemLogEntry.objects.get(item=copy).action == "create"
    assert item_state(original) == before


def test_a_nul_byte_in_a_field_is_a_form_error_not_a_server_error(client):
    item = make_item(status="draft", title="Clean")
    client.force_login(make_editor())
    before = item_state(item)

    response = client.post(
        change_url(item), form_data(client, item, title="Bad\x00title", tags=["ok", "b\x00d"])
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors.keys() == {"title", "tags"}
    assert item_state(item) == before


# --- concurrent edits ------------------------------------------------------------------


def test_the_second_of_two_saves_is_refused_and_keeps_what_was_typed(client):
    item = make_item(status="draft", title="First title", summary="First summary")
    client.force_login(make_editor(username="lin"))
    lins_form = form_data(client, item, summary="Lin's careful summary")
    item_edit(
        item=item,
        by=make_editor(username="mei"),
        changes={"title": "Mei's title"},
        expected_version=1,
    )
    after_mei = item_state(item)

    response = client.post(change_url(item), lins_form, headers=EN)

    assert response.status_code == 200
    assert item_state(item) == after_mei
    assert "mei changed title at " in response.text
    assert "Your input is kept below" in response.text
    assert "Lin&#x27;s careful summary</textarea>" in response.text
    assert 'name="expected_version" value="2"' in response.text

    # Saving again, having seen the warning, is a deliberate overwrite.
    again = dict(lins_form, expected_version=2)
    client.post(change_url(item), again)
    saved = Item.objects.get(pk=item.pk)
    assert (saved.title, saved.summary, saved.version) == (
        "First title",
        "Lin's careful summary",
        3,
    )


def test_a_conflict_found_only_at_write_time_sends_the_form_through_its_checks_again(
    client, monkeypatch
):
    item = make_item(status="draft")
    client.force_login(make_editor())
    data = form_data(client, item, title="Changed")
    real_save_model = ItemAdmin.save_model
    calls = []

    def save_model_losing_the_first_race(self, request, obj, form, change):
        calls.append(1)
        if len(calls) == 1:
            raise EditConflict("someone was faster", current_version=1, changed_fields=[])
        return real_save_model(self, request, obj, form, change)

    monkeypatch.setattr(ItemAdmin, "save_model", save_model_losing_the_first_race)

    response = client.post(change_url(item), data)

    assert response.status_code == 302
    assert len(calls) == 2
    assert Item.objects.get(pk=item.pk).title == "Changed"


# --- the rest of the form ---------------------------------------------------------------


def test_save_and_go_to_next_draft_opens_the_next_older_draft(client):
    newest = make_item(status="draft", title="Newest")
    older = make_item(status="draft", title="Older")
    Item.objects.filter(pk=older.pk).update(created_at=newest.created_at - datetime.timedelta(1))
    client.force_login(make_editor())

    response = client.post(change_url(newest), form_data(client, newest, _nextdraft="Next"))

    assert response["Location"] == change_url(older)


def test_the_last_draft_leads_back_to_the_queue(client):
    only = make_item(status="draft")
    client.force_login(make_editor())

    response = client.post(change_url(only), form_data(client, only, _nextdraft="Next"))

    assert response["Location"] == "/admin/feed/item/"


def test_the_form_shows_the_history_the_original_link_and_read_only_fetch_data(client):
    item = make_item(status="draft", url="https://lab.example/post", guid="lab-42")
    item_publish(item=item, by=make_chief_editor(username="zhou"))
    client.force_login(make_editor())

    html = client.get(change_url(item), headers=EN).text

    assert '<a href="https://lab.example/post" target="_blank" rel="noopener noreferrer">' in html
    assert re.search(r'<td class="field-by_name">\s*<p>zhou</p>', html)
    assert re.search(r'<td class="field-action">\s*<p>Published</p>', html)
    assert re.search(r'<td class="field-from_status">\s*<p>Draft</p>', html)
    assert 'name="guid"' not in html and "lab-42" in html
    assert 'name="status"' not in html
    for heading in ("Content", "Classification", "Workflow", "Fetch metadata"):
        assert f">{heading}</" in html


def test_an_item_added_by_hand_is_a_draft(client):
    source = make_item().source
    editor = make_editor()
    client.force_login(editor)
    response = client.get("/admin/feed/item/add/")
    data = {
        "title": "Written in the admin",
        "url": "https://news.example/hand-made",
        "source": source.pk,
        "kind": "news",
        "heat": 5,
        "tags": ["政策", "新标签"],
        "status": "featured",
        "_save": "Save",
    }
    for inline in response.context["inline_admin_formsets"]:  # history, heat, enrichment
        data[f"{inline.formset.prefix}-TOTAL_FORMS"] = 0
        data[f"{inline.formset.prefix}-INITIAL_FORMS"] = 0
    assert response.status_code == 200

    client.post("/admin/feed/item/add/", data)

    item = Item.objects.get(url="https://news.example/hand-made")
    assert (item.status, item.submitted_by, sorted(item.tags.names())) == (
        "draft",
        editor,
        ["政策", "新标签"],
    )


def test_tag_suggestions_come_from_existing_tags(client):
    make_item(tags=["分布式训练", "大模型", "训练数据"])
    client.force_login(make_editor())

    response = client.get("/admin/feed/item/tags/autocomplete/", {"term": "训练"})

    assert response.json() == {
        "results": [
            {"id": "分布式训练", "text": "分布式训练"},
            {"id": "训练数据", "text": "训练数据"},
        ],
        "pagination": {"more": False},
    }


def test_tag_suggestions_need_change_permission_and_refuse_nul(client):
    client.force_login(make_user(is_staff=True, perms=["feed.view_item"]))
    assert client.get("/admin/feed/item/tags/autocomplete/").status_code == 403

    client.force_login(make_editor())
    assert client.get("/admin/feed/item/tags/autocomplete/?term=%00").status_code == 400


def test_staff_who_may_only_view_see_the_item_read_only(client):
    item = make_item(status="draft", title="Look, don't touch")
    client.force_login(make_user(is_staff=True, perms=["feed.view_item"]))

    response = client.get(change_url(item))

    assert response.status_code == 200
    assert 'name="title"' not in response.text
    assert submit_buttons(response.text) == set()
    assert client.post(change_url(item), {"title": "Touched"}).status_code == 403
    assert Item.objects.get(pk=item.pk).title == "Look, don't touch"


def test_a_url_typed_with_tracking_parameters_is_saved_without_them(client):
    item = make_item(status="draft", url="https://news.example/plain")
    client.force_login(make_editor())

    client.post(
        change_url(item),
        form_data(client, item, url="https://news.example/plain?utm_source=mail&page=2"),
        headers=EN,
    )

    assert Item.objects.get(pk=item.pk).url == "https://news.example/plain?page=2"


def test_a_url_another_item_has_in_another_spelling_is_a_form_error(client):
    make_item(url="https://news.example/taken")
    item = make_item(status="draft", url="https://news.example/mine")
    client.force_login(make_editor())
    before = item_state(item)

    response = client.post(
        change_url(item),
        form_data(client, item, url="https://NEWS.example/taken?utm_campaign=x"),
        headers=EN,
    )

    assert response.context["adminform"].form.errors["url"] == [
        "An item with this URL exists already."
    ]
    assert item_state(item) == before
