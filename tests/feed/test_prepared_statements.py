"""Our own plain SQL on a page's path is planned once a connection on PostgreSQL."""

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from feed.models import Item
from feed.models.items import card_tags_attach
from tests.factories import make_item, make_tag

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]


def prepared() -> list[str]:
    """The statements this connection holds prepared, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements ORDER BY prepare_time")
        return [row[0] for row in cursor.fetchall()]


def cold_get(client, path: str) -> str:
    cache.clear()
    return client.get(path).text


@pytest.fixture
def tagged():
    tag = make_tag("agents", "智能体 & <agents>")
    return [make_item(title=f"Agents {n}", tags=[tag]) for n in range(3)]


@pytest.fixture
def items(tagged):
    """The tagged items as a page of cards reads them, before their tags are attached."""
    return list(Item.objects.filter(pk__in=[item.pk for item in tagged]).select_related("source"))


def test_a_tag_page_prepares_its_own_statements_once_and_reads_the_same(client, tagged):
    first = cold_get(client, "/?tag=agents")
    after_first = prepared()
    second = cold_get(client, "/?tag=agents")

    assert second == first
    assert "智能体 &amp; &lt;agents&gt;" in first
    assert prepared() == after_first
    statements = "\n".join(after_first)
    # The cards' tags, the tag's name for its chip, the generation read: each prepared.
    assert '"feed_taggeditem"."content_object_id" = ANY($1)' in statements
    assert 'WHERE "taggit_tag"."slug" IN ($1)' in statements
    assert 'FROM "feed_generation"' in statements
    # The ORM's own statements bind on the client and are never prepared.
    assert 'ORDER BY "feed_item"."published_at" DESC' not in statements


def test_while_queries_are_logged_they_run_unprepared_and_show_their_values(items):
    before = prepared()

    with CaptureQueriesContext(connection) as captured:
        card_tags_attach(items)

    assert len(captured) == 1
    assert captured[0]["sql"].startswith('SELECT "feed_taggeditem"."content_object_id"')
    assert f"{items[0].pk}" in captured[0]["sql"]
    assert prepared() == before
    assert [tag.name for tag in items[0].card_tags] == ["智能体 & <agents>"]


def test_an_execute_wrapper_sees_a_prepared_statement(items):
    seen = []

    def wrapper(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        card_tags_attach(items)

    assert len(seen) == 1
    assert any(statement == seen[0].replace("%s", "$1") for statement in prepared())


def test_a_statement_prepared_in_a_transaction_rolled_back_still_answers(items):

    with pytest.raises(RuntimeError), transaction.atomic():
        card_tags_attach(items)
        raise RuntimeError("the request failed")
    for item in items:
        del item.card_tags
    card_tags_attach(items)

    assert all([tag.slug for tag in item.card_tags] == ["agents"] for item in items)


@override_settings(AITOP_PREPARED_STATEMENTS=False)
def test_turned_off_nothing_is_prepared(client, tagged):
    before = prepared()

    html = cold_get(client, "/?tag=agents")

    assert "Agents 2" in html
    assert prepared() == before
