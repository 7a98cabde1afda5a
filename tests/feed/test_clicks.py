"""The outbound link /go/<id>/: a redirect to the original that counts every click."""

import threading

import pytest
from django.db import connection

from feed.clicks import item_count_click
from feed.models import Item
from tests.factories import make_item


@pytest.mark.django_db
def test_following_the_original_link_redirects_and_counts(client):
    item = make_item(url="https://lab.example/posts/42")

    first = client.get(f"/go/{item.pk}/")
    client.get(f"/go/{item.pk}/")

    assert first.status_code == 302
    assert first["Location"] == "https://lab.example/posts/42"
    assert "no-cache" in first["Cache-Control"]
    item.refresh_from_db()
    assert item.clicks == 2


@pytest.mark.django_db
def test_a_head_request_answers_without_counting(client):
    item = make_item(url="https://lab.example/posts/43")

    response = client.head(f"/go/{item.pk}/")

    assert response.status_code == 302
    item.refresh_from_db()
    assert item.clicks == 0


@pytest.mark.django_db
@pytest.mark.parametrize("status", ["draft", "rejected"])
def test_the_counter_is_a_404_for_items_readers_cannot_see(client, status):
    item = make_item(status=status)

    assert client.get(f"/go/{item.pk}/").status_code == 404
    assert item_count_click(pk=item.pk) is None
    item.refresh_from_db()
    assert item.clicks == 0


@pytest.mark.django_db
def test_the_counter_refuses_other_methods(client):
    item = make_item()

    assert client.post(f"/go/{item.pk}/").status_code == 405
    item.refresh_from_db()
    assert item.clicks == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_clicks_are_all_counted(django_db_blocker):
    item = make_item()
    workers, clicks_each = 8, 10
    start = threading.Barrier(workers)
    errors: list[BaseException] = []

    def click():
        try:
            start.wait()
            for _ in range(clicks_each):
                item_count_click(pk=item.pk)
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert Item.objects.get(pk=item.pk).clicks == workers * clicks_each
