"""The queue and the item form cost the same number of queries whatever they hold."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial.admin.items import ItemAdmin
from editorial.edits import item_edit
from tests.factories import make_chief_editor, make_item, make_source

pytestmark = pytest.mark.django_db

# Measured on SQLite and PostgreSQL alike (session, user, permissions, counts,
# rows with their source and same-story count joined in, tags in one query,
# the filters' choices); neither number grows with items, rows or history.
QUEUE_MAX = 10
# The form: +3 for its decision bar (pending revisions, the "ready" mark, the next draft),
# +1 for the heat inline of the stories app.
FORM_MAX = 13


def fill(count: int) -> list:
    sources = [make_source() for _ in range(5)]
    return [
        make_item(
            status="draft",
            source=sources[n % 5],
            tags=[f"tag-{n % 7}", f"主题{n % 3}"],
            cluster_key=f"story-{n % 4}",
        )
        for n in range(count)
    ]


def queries_for(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


@pytest.mark.parametrize("count", [10, 100])
def test_the_queue_renders_in_a_fixed_number_of_queries(client, monkeypatch, count):
    # All of them on one page, so the larger case really renders 100 rows.
    monkeypatch.setattr(ItemAdmin, "list_per_page", 100)
    items = fill(count)
    client.force_login(make_chief_editor())
    client.get("/admin/feed/item/")  # the session's first use is not the page's cost

    queries = queries_for(client, "/admin/feed/item/")

    assert queries <= QUEUE_MAX
    html = client.get("/admin/feed/item/").text
    assert html.count('<th class="field-title">') == len(items)


def test_the_queue_costs_the_same_for_10_and_100_items(client, monkeypatch):
    monkeypatch.setattr(ItemAdmin, "list_per_page", 100)
    client.force_login(make_chief_editor())
    fill(10)
    client.get("/admin/feed/item/")
    small = queries_for(client, "/admin/feed/item/")
    fill(90)

    assert queries_for(client, "/admin/feed/item/") == small


def item_with_history(count: int):
    editor = make_chief_editor()
    fill(count)
    item = make_item(status="draft", tags=["大模型", "推理"])
    for version in range(1, count + 1):
        item_edit(item=item, by=editor, changes={"heat": version % 100}, expected_version=version)
    return item


@pytest.mark.parametrize("count", [10, 100])
def test_the_item_form_renders_in_a_fixed_number_of_queries(client, count):
    item = item_with_history(count)
    client.force_login(make_chief_editor())
    url = f"/admin/feed/item/{item.pk}/change/"
    client.get(url)

    assert queries_for(client, url) <= FORM_MAX


def test_the_item_form_costs_the_same_for_10_and_100_history_entries_and_items(client):
    small_item = item_with_history(10)
    large_item = item_with_history(100)
    client.force_login(make_chief_editor())
    client.get(f"/admin/feed/item/{small_item.pk}/change/")

    small = queries_for(client, f"/admin/feed/item/{small_item.pk}/change/")
    large = queries_for(client, f"/admin/feed/item/{large_item.pk}/change/")

    assert large == small
