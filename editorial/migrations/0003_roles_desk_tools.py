"""Both editorial roles get the desk's tools that came with ingestion and the API.

Keyword rules (editors manage them), the fetch history (read), the
tombstones of deleted items (read, and delete to let a story come back).
The list is copied here on purpose: a migration keeps doing what it did.

This migration once granted the webhooks permissions too, which made
editorial depend on webhooks. Those grants now live in
`webhooks/migrations/0002_grant_editorial_roles.py` (the same rows, so a
database that ran the old version is left as it is).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

DESK_TOOLS = [
    "feed.view_keywordrule",
    "feed.add_keywordrule",
    "feed.change_keywordrule",
    "feed.delete_keywordrule",
    "feed.view_fetchattempt",
    "feed.view_tombstone",
    "feed.delete_tombstone",
]
GROUPS = {"Editors": DESK_TOOLS, "Chief editors": DESK_TOOLS}


def _grant(apps, permissions_by_group: dict[str, list[str]]) -> None:
    # Permissions are normally created after all migrations have run.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, perms in permissions_by_group.items():
        group, _created = Group.objects.get_or_create(name=name)
        for perm in perms:
            app_label, codename = perm.split(".")
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def _revoke(apps, permissions_by_group: dict[str, list[str]]) -> None:
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, perms in permissions_by_group.items():
        group = Group.objects.filter(name=name).first()
        if group is None:
            continue
        for perm in perms:
            app_label, codename = perm.split(".")
            group.permissions.remove(
                *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
            )


def grant(apps, schema_editor):
    _grant(apps, GROUPS)


def revoke(apps, schema_editor):
    _revoke(apps, GROUPS)


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0002_editorial_roles"),
        ("feed", "0002_ingest_models"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
