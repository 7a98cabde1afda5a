"""Plain helpers that make test data with visible, overridable defaults."""

import datetime
import itertools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone

from feed.models import Item, Source

_counter = itertools.count(1)


def make_source(**kwargs) -> Source:
    n = next(_counter)
    kwargs.setdefault("name", f"Source {n}")
    kwargs.setdefault("slug", f"source-{n}")
    kwargs.setdefault("kind", "blog")
    kwargs.setdefault("feed_url", f"https://source{n}.example/feed.xml")
    tags = kwargs.pop("default_tags", [])
    source = Source.objects.create(**kwargs)
    if tags:
        source.default_tags.set(tags)
    return source


def make_item(**kwargs) -> Item:
    """A published item, visible since an hour ago, unless told otherwise."""
    n = next(_counter)
    tags = kwargs.pop("tags", [])
    if "source" not in kwargs:
        kwargs["source"] = make_source()
    kwargs.setdefault("title", f"Item {n}")
    # Featuring needs a "why recommended"; every test item has one unless told otherwise.
    kwargs.setdefault("recommendation", f"Why item {n} is worth reading.")
    kwargs.setdefault("url", f"https://news.example/items/{n}")
    kwargs.setdefault("guid", kwargs["url"])
    kwargs.setdefault("kind", kwargs["source"].kind)
    kwargs.setdefault("status", Item.Status.PUBLISHED)
    if kwargs["status"] in (Item.Status.PUBLISHED, Item.Status.FEATURED):
        kwargs.setdefault("published_at", timezone.now() - datetime.timedelta(hours=1))
    item = Item.objects.create(**kwargs)
    if tags:
        item.tags.set(tags)
    return item


def make_tag(slug: str, name: str):
    """A tag with this slug and name (its name may need escaping, unlike a slug)."""
    from taggit.models import Tag

    return Tag.objects.get_or_create(slug=slug, defaults={"name": name})[0]


def make_user(*, perms: list[str] = (), **kwargs):
    """A user holding the given permissions, named "app_label.codename"."""
    n = next(_counter)
    kwargs.setdefault("username", f"user{n}")
    password = kwargs.pop("password", "a-long-test-password")
    user = get_user_model().objects.create_user(password=password, **kwargs)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return user


def make_staff(*, role: str, **kwargs):
    """A staff user in one of the editorial groups ("Editors" or "Chief editors")."""
    from editorial.roles import roles_ensure

    user = make_user(is_staff=True, **kwargs)
    user.groups.add(roles_ensure()[role])
    return user


def make_editor(**kwargs):
    """An editor: corrects items and sources, moves nothing onto the site."""
    return make_staff(role="Editors", **kwargs)


def make_chief_editor(**kwargs):
    """A chief editor: an editor who may also publish, feature, reject and restore."""
    return make_staff(role="Chief editors", **kwargs)


def make_superuser(**kwargs):
    kwargs.setdefault("username", f"super{next(_counter)}")
    return get_user_model().objects.create_superuser(password="a-long-test-password", **kwargs)
