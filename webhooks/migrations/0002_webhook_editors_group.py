"""The "Webhook editors" group: register webhooks, read the delivery log, retry deliveries.

A group of its own rather than more permissions for the editorial roles, so
those roles stay exactly what editorial/roles.py says; an admin adds editors
to it. The permission list is copied here on purpose: a migration must keep
doing what it did when it was written.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = [
    "webhooks.view_webhook",
    "webhooks.add_webhook",
    "webhooks.change_webhook",
    "webhooks.delete_webhook",
    "webhooks.view_delivery",
    # Retrying a delivery from the log.
    "webhooks.change_delivery",
    "webhooks.view_attempt",
]
GROUP = "Webhook editors"


def grant(apps, schema_editor):
    # Permissions are normally created after all migrations have run.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=GROUP)
    for perm in PERMISSIONS:
        app_label, codename = perm.split(".")
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )


def revoke(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
