"""Editors and chief editors register webhooks, read the delivery log and retry deliveries.

The list is copied here on purpose: a migration keeps doing what it did.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

WEBHOOK_TOOLS = [
    "webhooks.view_webhook",
    "webhooks.add_webhook",
    "webhooks.change_webhook",
    "webhooks.delete_webhook",
    "webhooks.view_delivery",
    # Retrying a delivery from the log.
    "webhooks.change_delivery",
    "webhooks.view_attempt",
]
GROUPS = {"Editors": WEBHOOK_TOOLS, "Chief editors": WEBHOOK_TOOLS}


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
        ("webhooks", "0001_initial"),
        ("editorial", "0002_editorial_roles"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
