"""`manage.py load_demo` gives a fresh install something to show, once."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from taggit.models import Tag

from feed.models import Category, Item, Kind, Source, TaggedItem

pytestmark = pytest.mark.django_db


def row_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Source, Item, Tag, TaggedItem, get_user_model())
    }


def test_loading_the_demo_twice_changes_nothing():
    call_command("load_demo", "--accounts", stdout=io.StringIO())
    first = row_counts()
    call_command("load_demo", "--accounts", stdout=io.StringIO())

    assert row_counts() == first
    assert first["Item"] >= 35


def test_the_demo_covers_every_kind_category_and_state():
    call_command("load_demo", stdout=io.StringIO())

    assert set(Item.objects.values_list("kind", flat=True)) == set(Kind.values)
    assert set(Item.objects.values_list("category", flat=True)) == set(Category.values)
    assert Item.objects.drafts().count() >= 3
    assert Item.objects.featured().count() >= 3
    assert Item.objects.filter(status="rejected").count() == 1
    assert Item.objects.scheduled().count() == 1
    assert Source.objects.count() >= 8
    assert Tag.objects.count() >= 20
    assert Tag.objects.filter(name="分布式训练").exists()


def test_the_demo_spans_about_ten_days():
    call_command("load_demo", stdout=io.StringIO())
    visible = Item.objects.visible()
    newest = visible.latest("published_at").published_at
    oldest = visible.earliest("published_at").published_at

    assert 8 <= (newest - oldest).days <= 11


def test_demo_logins_are_printed_and_work(capsys):
    call_command("load_demo", "--accounts")

    out = capsys.readouterr().out
    assert "Demo admin: user 'admin', password 'aitop-demo-admin'" in out
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("aitop-demo-admin")


def test_without_debug_or_accounts_no_login_is_created():
    call_command("load_demo", stdout=io.StringIO())

    assert not get_user_model().objects.exists()
