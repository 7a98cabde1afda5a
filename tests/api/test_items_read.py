"""Reading items: only published ones, the site's filters and order, cursor pages, fixed queries."""

import datetime

import pytest

from feed import freshness
from feed.freshness import generation_in_cache
from tests.factories import make_item, make_source, make_user

pytestmark = pytest.mark.django_db

# Reading the generation: a cache read with a shared cache, else one primary-key query.
G = 0 if generation_in_cache() else 1


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["results"]]


def test_item_payload_has_every_field_an_integration_needs(api, clock):
    source = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper")
    item = make_item(
        source=source,
        title="长上下文 training",
        url="https://arxiv.org/abs/2606.01234",
        summary="A summary.",
        recommendation="Read it.",
        authors="María Gragera Garcés, Lirandë Pira",
        category="paper",
        heat=83,
        status="featured",
        published_at=clock.now - datetime.timedelta(hours=2),
        tags=["长上下文", "agents"],
    )

    response = api.get("/api/v1/items/")

    assert response.json()["results"] == [
        {
            "id": item.pk,
            "page_url": f"http://testserver{item.get_absolute_url()}",
            "original_url": "https://arxiv.org/abs/2606.01234",
            "title": "长上下文 training",
            "summary": "A summary.",
            "recommendation": "Read it.",
            "authors": "María Gragera Garcés, Lirandë Pira",
            "source": {
                "id": source.pk,
                "slug": "arxiv-cs-lg",
                "name": "arXiv cs.LG",
                "kind": "paper",
                "handle": "",
            },
            "kind": "paper",
            "category": "paper",
            "tags": [
                {"slug": "agents", "name": "agents"},
                {"slug": "长上下文", "name": "长上下文"},
            ],
            "heat": 83,
            "heat_breakdown": None,
            "story": None,
            "featured": True,
            "status": "featured",
            "published_at": "2026-06-20T10:00:00+08:00",
            "version": 1,
        }
    ]


def test_drafts_rejected_and_scheduled_items_never_reach_anonymous_callers(api, clock):
    shown = make_item(title="Shown")
    hidden = [
        make_item(title="Draft", status="draft"),
        make_item(title="Rejected", status="rejected"),
        make_item(title="Later", published_at=clock.now + datetime.timedelta(hours=1)),
    ]

    assert _ids(api.get("/api/v1/items/")) == [shown.pk]
    for item in hidden:
        response = api.get(f"/api/v1/items/{item.pk}/")
        assert response.status_code == 404, item.title
        assert response.json()["code"] == "not_found"


def test_a_reader_token_sees_no_more_than_anonymous_callers(token_client):
    draft = make_item(status="draft")

    assert token_client(make_user()).get(f"/api/v1/items/{draft.pk}/").status_code == 404


def test_staff_who_may_view_items_read_a_draft_but_the_list_stays_public(token_client):
    draft = make_item(title="Draft", status="draft")
    staff = token_client(make_user(perms=["feed.view_item"]))

    assert staff.get(f"/api/v1/items/{draft.pk}/").json()["status"] == "draft"
    assert _ids(staff.get("/api/v1/items/")) == []


def test_items_are_newest_first_and_hot_orders_by_heat(api, clock):
    old_hot = make_item(heat=90, published_at=clock.now - datetime.timedelta(days=2))
    new_cold = make_item(heat=10, published_at=clock.now - datetime.timedelta(hours=1))
    middle = make_item(heat=50, published_at=clock.now - datetime.timedelta(days=1))

    assert _ids(api.get("/api/v1/items/")) == [new_cold.pk, middle.pk, old_hot.pk]
    assert _ids(api.get("/api/v1/items/?ordering=hot")) == [old_hot.pk, middle.pk, new_cold.pk]


@pytest.mark.parametrize("ordering", ["title", "-heat", "id", "hot,latest"])
def test_ordering_outside_the_allow_list_is_a_400(api, ordering):
    response = api.get(f"/api/v1/items/?ordering={ordering}")

    assert response.status_code == 400
    assert response.json()["fields"] == {"ordering": ["Order by one of: latest, hot."]}


def test_cursor_pages_stay_stable_while_new_items_arrive(api, clock):
    moment = clock.now - datetime.timedelta(hours=1)
    # Same publish time for all: the id breaks ties, so no item repeats or goes missing.
    items = [make_item(published_at=moment) for _ in range(5)]
    expected = [item.pk for item in reversed(items)]

    first = api.get("/api/v1/items/?page_size=2").json()
    make_item(published_at=clock.now - datetime.timedelta(minutes=1))  # arrives meanwhile
    second = api.get(first["next"]).json()
    third = api.get(second["next"]).json()

    seen = [item["id"] for page in (first, second, third) for item in page["results"]]
    assert seen == expected
    assert third["next"] is None


def test_hot_ordering_pages_through_ties_in_heat(api, clock):
    items = [
        make_item(heat=50, published_at=clock.now - datetime.timedelta(hours=n)) for n in (1, 2, 3)
    ]

    first = api.get("/api/v1/items/?ordering=hot&page_size=2").json()
    second = api.get(first["next"]).json()

    assert [i["id"] for i in first["results"] + second["results"]] == [i.pk for i in items]


def test_a_cursor_of_one_ordering_is_refused_under_another(api):
    make_item()
    make_item()
    latest = api.get("/api/v1/items/?page_size=1").json()["next"]
    cursor = latest.split("cursor=", 1)[1]

    response = api.get(f"/api/v1/items/?ordering=hot&cursor={cursor}")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["cursor"]


def test_page_size_defaults_to_20(api):
    for _ in range(21):
        make_item()

    body = api.get("/api/v1/items/").json()

    assert len(body["results"]) == 20
    assert body["next"] is not None


@pytest.mark.parametrize("query", ["kind=podcast", "since=yesterday", "featured=maybe", "tag=%00"])
def test_unreadable_filter_is_a_400_naming_it(api, query):
    response = api.get(f"/api/v1/items/?{query}")

    assert response.status_code == 400
    name = query.split("=", 1)[0]
    assert list(response.json()["fields"]) == [name]


@pytest.mark.parametrize("path", ["/api/v1/items/abc/", "/api/v1/items/99999999999999999999999/"])
def test_an_id_that_is_no_number_is_a_404(api, path):
    response = api.get(path)

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("count", [5, 50])
def test_item_list_runs_two_queries_whatever_it_holds(api, django_assert_num_queries, count):
    for n in range(count):
        make_item(source=make_source(), tags=[f"tag-{n}", "shared"])
    freshness.generation_current()  # the writes' bump lands first, as after a commit

    # The generation (a primary-key query without a shared cache), the items, their tags.
    with django_assert_num_queries(G + 2):
        response = api.get("/api/v1/items/?page_size=100")

    assert len(response.json()["results"]) == count


@pytest.mark.parametrize("count", [5, 50])
def test_filtered_list_with_a_token_runs_four_queries(
    token_client, django_assert_num_queries, count
):
    # the token, the tag's id, the items, their tags
    client = token_client(make_user())
    for _ in range(count):
        make_item(kind="paper", tags=["agents"])
    client.get("/api/v1/items/")  # the token's first use is written once

    with django_assert_num_queries(4):
        response = client.get("/api/v1/items/?page_size=100&tag=agents&kind=paper")

    assert len(response.json()["results"]) == count
