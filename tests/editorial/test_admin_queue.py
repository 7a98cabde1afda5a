"""The review queue: the Item changelist, its filters, bulk actions and editable columns."""

import datetime
import html as html_lib
import re

import pytest
from django.utils import timezone

from editorial.edits import item_edit
from editorial.models import ItemLogEntry
from editorial.workflow import TRANSITIONS
from feed.models import Item
from tests.editorial.helpers import MAY_MOVE, ROLES, item_state, make_actor
from tests.factories import make_chief_editor, make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db

QUEUE = "/admin/feed/item/"
EN = {"accept-language": "en"}


def titles(html: str) -> list[str]:
    """The titles in the queue, top to bottom."""
    found = re.findall(r'<th class="field-title"><a href="[^"]+">([^<]+)</a>', html)
    return [html_lib.unescape(title) for title in found]


def drafted(title: str, hours_ago: float, **kwargs) -> Item:
    item = make_item(title=title, status="draft", **kwargs)
    created = timezone.now() - datetime.timedelta(hours=hours_ago)
    Item.objects.filter(pk=item.pk).update(created_at=created)
    return item


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_queue_opens_on_drafts_newest_first(client):
    drafted("Older draft", 5)
    drafted("Newest draft", 1)
    drafted("Middle draft", 3)
    make_item(title="Already published")
    client.force_login(make_editor())

    html = client.get(QUEUE).text

    assert titles(html) == ["Newest draft", "Middle draft", "Older draft"]


def test_the_status_filter_offers_every_state_and_all(client):
    drafted("A draft", 1)
    make_item(title="A published story")
    make_item(title="A rejected one", status="rejected")
    client.force_login(make_editor())

    assert titles(client.get(QUEUE, {"status": "published"}).text) == ["A published story"]
    assert titles(client.get(QUEUE, {"status": "rejected"}).text) == ["A rejected one"]
    assert sorted(titles(client.get(QUEUE, {"status": "all"}).text)) == [
        "A draft",
        "A published story",
        "A rejected one",
    ]


def test_a_row_shows_time_source_summary_category_tags_heat_status_and_story(client):
    # The story cell's content comes from the stories app (tests/stories/test_actions.py).
    source = make_source(name="arXiv cs.LG", kind="paper")
    drafted(
        "Sparse experts revisited",
        1,
        source=source,
        category="paper",
        heat=64,
        tags=["论文", "推理"],
    )
    make_item(title="Unrelated")
    client.force_login(make_editor())

    html = client.get(QUEUE, headers=EN).text
    row = re.search(r"<tr>.*?Sparse experts revisited.*?</tr>", html, re.S).group(0)

    assert '<td class="field-source nowrap">arXiv cs.LG</td>' in row or ">arXiv cs.LG<" in row
    assert 'value="paper" selected' in row
    assert '<td class="field-excerpt"><span class="editorial-excerpt">' in row
    assert ">论文</a>, <a" in row and ">推理</a>" in row
    assert 'value="64"' in row
    assert "editorial-status--draft" in row and ">Draft<" in row
    assert re.search(r'<td class="field-story">—</td>', row)


def test_scheduled_items_are_shown_as_scheduled(client):
    at = timezone.now() + datetime.timedelta(days=1)
    make_item(title="Tomorrow's story", published_at=at)
    make_item(title="Today's story")
    client.force_login(make_editor())

    html = client.get(QUEUE, {"status": "scheduled"}, headers=EN).text

    assert titles(html) == ["Tomorrow's story"]
    assert "Published, scheduled for" in html


def test_search_looks_in_title_summary_url_and_authors(client):
    drafted("Plain title", 1, summary="mentions ring all-reduce")
    drafted("By someone", 2, authors="Ada Moreau")
    drafted("Linked", 3, url="https://lab.example/ring-attention")
    drafted("Nothing to do with it", 4)
    client.force_login(make_editor())

    assert titles(client.get(QUEUE, {"q": "all-reduce"}).text) == ["Plain title"]
    assert titles(client.get(QUEUE, {"q": "Moreau"}).text) == ["By someone"]
    assert titles(client.get(QUEUE, {"q": "ring-attention"}).text) == ["Linked"]


def test_filters_by_kind_category_source_tag_and_date(client):
    paper_source = make_source(kind="paper")
    drafted("A paper", 1, source=paper_source, category="paper", tags=["分布式训练"])
    drafted("A blog post", 2, category="tip")
    old = drafted("Came in long ago", 24 * 40)
    client.force_login(make_editor())

    assert titles(client.get(QUEUE, {"kind__exact": "paper"}).text) == ["A paper"]
    assert titles(client.get(QUEUE, {"category__exact": "tip"}).text) == ["A blog post"]
    assert titles(client.get(QUEUE, {"source__id__exact": paper_source.pk}).text) == ["A paper"]
    assert titles(client.get(QUEUE, {"tag": "分布式训练"}).text) == ["A paper"]
    since = (timezone.localtime() - datetime.timedelta(days=7)).isoformat()
    recent = titles(client.get(QUEUE, {"created_at__gte": since}).text)
    assert old.title not in recent and "A paper" in recent


@pytest.mark.parametrize("query", ["q=%00", "status=%00", "tag=%00", "cluster_key=a%00b"])
def test_a_nul_byte_in_the_address_is_a_clear_400(client, query):
    drafted("Anything", 1)
    client.force_login(make_editor())

    response = client.get(f"{QUEUE}?{query}")

    assert response.status_code == 400
    assert b"NUL" in response.content


# --- bulk actions --------------------------------------------------------------------


def action_choices(html: str) -> set[str]:
    select = re.search(r'<select name="action".*?</select>', html, re.S)
    return set(re.findall(r'<option value="(\w+)"', select.group(0))) - {""} if select else set()


WORKFLOW_ACTIONS = set(TRANSITIONS)


def test_an_editor_is_offered_no_workflow_action(client):
    drafted("A draft", 1)
    client.force_login(make_editor())

    # Story and enrichment actions are an editor's to take; moves are not.
    assert action_choices(client.get(QUEUE).text) & WORKFLOW_ACTIONS == set()


def test_a_chief_editor_is_offered_every_workflow_action(client):
    drafted("A draft", 1)
    client.force_login(make_chief_editor())

    assert action_choices(client.get(QUEUE).text) >= {
        "publish",
        "feature",
        "unfeature",
        "reject",
        "restore",
    }


def bulk(client, action: str, items: list[Item], **extra):
    data = {"action": action, "_selected_action": [i.pk for i in items], "index": 0, **extra}
    return client.post(f"{QUEUE}?status=all", data, headers=EN, follow=True)


def item_in(status: str) -> Item:
    return make_item(status=status)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", list(TRANSITIONS))
def test_permission_matrix_of_every_bulk_action(client, role, action):
    user = make_actor(role)
    item = item_in(TRANSITIONS[action].sources[0])
    before = item_state(item)
    if user is not None:
        client.force_login(user)

    response = bulk(client, action, [item], post="yes", reason="Duplicate")

    if role in MAY_MOVE:
        assert Item.objects.get(pk=item.pk).status == TRANSITIONS[action].target
        assert ItemLogEntry.objects.filter(item=item).count() == 1
    else:
        assert item_state(item) == before
        if user is None:
            assert response.redirect_chain[-1][0].startswith("/admin/login/")
        else:
            # Editors are offered no workflow action, so the forged one is refused.
            assert response.status_code == 200
            assert messages_of(response) == ["No action selected."]


def test_naming_an_action_that_is_not_offered_changes_nothing(client):
    item = drafted("Not yours to reject", 1)
    before = item_state(item)
    client.force_login(
        make_user(is_staff=True, perms=["feed.view_item", "feed.change_item", "feed.publish_item"])
    )

    response = bulk(client, "reject", [item], post="yes", reason="Forged")

    assert messages_of(response) == ["No action selected."]
    assert item_state(item) == before


def test_a_bulk_action_over_a_mix_reports_partial_success(client):
    first = drafted("First draft", 1)
    second = drafted("Second draft", 2)
    gone = make_item(title="Thrown out", status="rejected")
    live = make_item(title="Already live")
    client.force_login(make_chief_editor())

    response = bulk(client, "publish", [first, second, gone, live])

    assert [Item.objects.get(pk=i.pk).status for i in (first, second, gone, live)] == [
        "published",
        "published",
        "rejected",
        "published",
    ]
    # In queue order, newest first.
    assert messages_of(response) == [
        "Published 2 items.",
        "2 items were left as they were:<ul>"
        "<li>“Already live” is published: only drafts can be published.</li>"
        "<li>“Thrown out” is rejected: only drafts can be published.</li></ul>",
    ]


def test_reject_asks_for_a_reason_first(client):
    item = drafted("Off topic", 1)
    client.force_login(make_chief_editor())

    asked = bulk(client, "reject", [item])
    assert "Reason" in asked.text and "Off topic" in asked.text
    assert Item.objects.get(pk=item.pk).status == "draft"

    without = bulk(client, "reject", [item], post="yes", reason="  ")
    assert "Say why these items are rejected." in without.text
    assert Item.objects.get(pk=item.pk).status == "draft"

    done = bulk(client, "reject", [item], post="yes", reason="Not about AI")
    assert messages_of(done) == ["Rejected 1 item."]
    assert ItemLogEntry.objects.get(item=item).note == "Not about AI"


# --- editable columns ----------------------------------------------------------------


def list_edit(client, item: Item, *, heat: int, version: int):
    data = {
        "form-TOTAL_FORMS": 1,
        "form-INITIAL_FORMS": 1,
        "form-MIN_NUM_FORMS": 0,
        "form-MAX_NUM_FORMS": 1000,
        "form-0-id": item.pk,
        "form-0-category": item.category,
        "form-0-heat": heat,
        "form-0-expected_version": version,
        "_save": "Save",
    }
    return client.post(f"{QUEUE}?status=all", data, headers=EN, follow=True)


def test_heat_edited_in_the_list_goes_through_the_version_check(client):
    item = drafted("Hot", 1, heat=10)
    client.force_login(make_editor(username="lin"))

    response = list_edit(client, item, heat=70, version=1)

    saved = Item.objects.get(pk=item.pk)
    assert (saved.heat, saved.version, saved.edited_fields) == (70, 2, ["heat"])
    assert ItemLogEntry.objects.get(item=item).by_name == "lin"
    assert "1 item was changed successfully." in messages_of(response)


def test_a_stale_row_in_the_list_is_refused_naming_who_changed_it(client):
    item = drafted("Contested", 1, heat=10)
    client.force_login(make_editor())
    rendered = client.get(QUEUE).text
    assert 'name="form-0-expected_version" value="1"' in rendered
    other = make_editor(username="mei")
    item_edit(item=item, by=other, changes={"heat": 30}, expected_version=1)
    before = item_state(item)

    response = list_edit(client, item, heat=70, version=1)

    assert item_state(item) == before
    assert "mei changed heat at" in response.text
    assert 'name="form-0-heat" value="70"' in response.text
