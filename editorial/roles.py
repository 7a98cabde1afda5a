"""The two editorial roles as auth groups, and what each may do.

Editorial grants what it knows: its own permissions and those of `feed`,
which it builds on. An app above editorial (webhooks) grants its own
permissions to these groups: a `role_permissions` mapping on its AppConfig,
read by `role_permissions()`, and a migration of its own.
"""

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

EDITORS = "Editors"
CHIEF_EDITORS = "Chief editors"

#: Editors prepare: they correct items and sources (and run the desk's tools)
#: but move nothing onto the site.
EDITOR_PERMISSIONS = (
    "feed.view_item",
    "feed.add_item",
    "feed.change_item",
    "feed.view_source",
    "feed.add_source",
    "feed.change_source",
    "editorial.view_itemlogentry",
    # The desk's tools: keyword rules, fetch history, tombstones of deleted items.
    "feed.view_keywordrule",
    "feed.add_keywordrule",
    "feed.change_keywordrule",
    "feed.delete_keywordrule",
    "feed.view_fetchattempt",
    "feed.view_tombstone",
    "feed.delete_tombstone",
    # Proposed revisions of live items, and drafts recommended to a chief.
    "feed.view_itemrevision",
    "editorial.view_itemrecommendation",
)
#: Chief editors decide what readers see.
CHIEF_EDITOR_PERMISSIONS = (
    *EDITOR_PERMISSIONS,
    "feed.publish_item",
    "feed.feature_item",
    "feed.unfeature_item",
    "feed.reject_item",
    "feed.restore_item",
    # Accepting proposed revisions and editing a live item's text directly.
    "feed.change_live_item",
)
ROLES: dict[str, tuple[str, ...]] = {
    EDITORS: EDITOR_PERMISSIONS,
    CHIEF_EDITORS: CHIEF_EDITOR_PERMISSIONS,
}


def role_permissions() -> dict[str, tuple[str, ...]]:
    """Each role's permissions: editorial's table plus what every installed app grants it."""
    roles = {name: list(perms) for name, perms in ROLES.items()}
    for config in apps.get_app_configs():
        for name, perms in getattr(config, "role_permissions", {}).items():
            roles[name].extend(perms)
    return {name: tuple(perms) for name, perms in roles.items()}


def permissions_named(names: tuple[str, ...]) -> list[Permission]:
    """The Permission rows for "app_label.codename" names."""
    query = Q(pk__in=[])
    for name in names:
        app_label, codename = name.split(".")
        query |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(query))
    if len(found) != len(names):
        raise LookupError(f"missing permissions among {names}: run `manage.py migrate`")
    return found


def roles_ensure() -> dict[str, Group]:
    """Make sure both groups exist with at least their permissions; keep any added by hand."""
    groups = {}
    for name, perms in role_permissions().items():
        group, _created = Group.objects.get_or_create(name=name)
        group.permissions.add(*permissions_named(perms))
        groups[name] = group
    return groups
