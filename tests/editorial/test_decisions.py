"""One-click decisions from the queue and the form; featuring needs a why; editors recommend."""

import pytest
from django.utils import translation

from editorial.errors import WhyRequired
from editorial.models import ItemLogEntry, ItemRecommendation
from editorial.workflow import item_feature
from feed.models import Item
from tests.editorial.helpers import item_state
from tests.factories import make_chief_editor, make_editor, make_item

pytestmark = pytest.mark.django_db
EN = {"accept-language": "en"}


def test_featuring_without_a_why_is_refused_and_changes_nothing():
    item = make_item(status="draft", recommendation="")
    before = item_state(item)

    with (
        translation.override("en"),
        pytest.raises(WhyRequired, match="cannot be featured without a “why recommended”"),
    ):
        item_feature(item=item, by=make_chief_editor())

    assert item_state(item) == before


def test_a_chief_rejects_from_the_queue_in_one_click_with_a_listed_reason(client):
    item = make_item(status="draft", title="Ad copy")
    client.force_login(make_chief_editor())

    response = client.post(
        "/admin/feed/item/decide/",
        {"decide": f"reject:{item.pk}", f"reason_{item.pk}": "Not about AI"},
        headers=EN,
    )

    item.refresh_from_db()
    assert response.status_code == 302
    assert item.status == "rejected"
    assert ItemLogEntry.objects.get(item=item, action="reject").note == "Not about AI"


def test_publish_and_next_goes_to_the_next_draft(client):
    older = make_item(status="draft", title="Older draft")
    newer = make_item(status="draft", title="Newer draft")
    client.force_login(make_chief_editor())

    response = client.post("/admin/feed/item/decide/", {"decide": f"publish:{newer.pk}:next"})

    newer.refresh_from_db()
    assert newer.status == "published"
    assert response["Location"] == f"/admin/feed/item/{older.pk}/change/"


def test_an_editor_cannot_publish_by_forging_a_decision(client):
    item = make_item(status="draft")
    client.force_login(make_editor())
    before = item_state(item)

    client.post("/admin/feed/item/decide/", {"decide": f"publish:{item.pk}"})

    assert item_state(item) == before


def test_an_editor_recommends_a_draft_and_chiefs_see_it_first(client):
    recommended = make_item(status="draft", title="Worth a look")
    make_item(status="draft", title="Newest draft")
    editor = make_editor()
    client.force_login(editor)

    client.post(
        "/admin/feed/item/decide/",
        {"decide": f"recommend:{recommended.pk}", "note": "Strong benchmark numbers"},
    )

    mark = ItemRecommendation.objects.get(item=recommended)
    assert (mark.by, mark.note) == (editor, "Strong benchmark numbers")
    client.force_login(make_chief_editor())
    queue = client.get("/admin/feed/item/", headers=EN)
    titles = [item.title for item in queue.context["cl"].result_list]
    assert titles == ["Worth a look", "Newest draft"]
    page = queue.content.decode()
    assert "Strong benchmark numbers" in page
    assert "Search looks only through: Drafts" in page


def test_the_editors_form_says_what_the_role_can_do(client):
    item = make_item(status="draft")
    client.force_login(make_editor())

    page = client.get(f"/admin/feed/item/{item.pk}/change/", headers=EN).content.decode()

    assert "You are an editor: you edit, tag and mark drafts “ready for a chief”" in page
    assert f'value="recommend:{item.pk}:next"' in page
    assert f'value="publish:{item.pk}:next"' not in page


def test_every_demo_featured_item_says_why():
    from feed.demo import demo_load

    demo_load()
    assert not Item.objects.featured().filter(recommendation="").exists()
