"""The API lists exactly what the public stream shows, in the same order, for the same filters."""

import datetime
import re

import pytest

from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

QUERIES = [
    "",
    "kind=paper",
    "category=model",
    "tag=agents",
    "tag=agents&tag=大模型",
    "source=lab",
    "featured=1",
    "featured=0",
    "q=模型",
    "q=reasoning model",
    "since=2026-06-19",
    "until=2026-06-18",
    "since=2026-06-19T09:00:00%2B08:00",
    "kind=paper&tag=agents&featured=1",
    "category=paper&source=arxiv&q=long",
]


@pytest.fixture
def desk(clock):
    """Items over four days, of every kind, some featured, some hidden."""
    lab = make_source(name="Lab", slug="lab", kind="blog")
    arxiv = make_source(name="arXiv", slug="arxiv", kind="paper")
    rows = [
        (lab, "A reasoning model for code", "model", ["agents"], "published"),
        (lab, "新的大模型发布", "model", ["大模型"], "featured"),
        (arxiv, "Long context, small model", "paper", ["agents", "大模型"], "featured"),
        (arxiv, "Agents that plan long", "paper", ["agents"], "published"),
        (lab, "Product launch", "product", [], "published"),
        (arxiv, "A draft paper", "paper", ["agents"], "draft"),
        (lab, "Rejected model", "model", ["agents"], "rejected"),
    ]
    for n, (source, title, category, tags, status) in enumerate(rows * 3):
        published = clock.now - datetime.timedelta(hours=7 * n + 1)
        make_item(
            source=source,
            title=f"{title} #{n}",
            category=category,
            tags=tags,
            status=status,
            published_at=published if status in ("published", "featured") else None,
        )
    make_item(
        source=lab, title="Scheduled model", published_at=clock.now + datetime.timedelta(hours=3)
    )


def _stream_ids(client, query: str) -> list[int]:
    response = client.get(f"/?{query}")
    assert response.status_code == 200, (query, response.status_code)
    # The cards as a reader sees them, in page order (each card is <article id="item-<pk>">).
    cards = re.findall(r'<article class="item[^"]*" id="item-(\d+)"', response.text)
    return [int(pk) for pk in cards]


@pytest.mark.parametrize("query", QUERIES)
def test_api_lists_the_same_items_in_the_same_order_as_the_stream(client, api, desk, query):
    stream = _stream_ids(client, query)
    listed = api.get(f"/api/v1/items/?{query}&page_size=100")

    assert listed.status_code == 200
    assert [item["id"] for item in listed.json()["results"]] == stream
