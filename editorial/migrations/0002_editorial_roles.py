"""The Editors and Chief editors groups with their permissions.

The role table is copied here on purpose: a migration must keep doing what it
did when it was written. Later changes to the roles get migrations of their own.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITOR_PERMISSIONS = [
    "feed.view_item",
    "feed.add_item",
    "feed.change_item",
    "feed.view_source",
    "feed.add_source",
    "feed.change_source",
    "editorial.view_itemlogentry",
]
ROLES = {
    "Editors": EDITOR_PERMISSIONS,
    "Chief editors": [
        *EDITOR_PERMISSIONS,
        "feed.publish_item",
        "feed.feature_item",
        "feed.unfeature_item",
        "feed.reject_item",
        "feed.restore_item",
    ],
}


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations have run; make
    # them now so that a fresh database gets complete groups.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, perms in ROLES.items():
        group, _created = Group.objects.get_or_create(name=name)
        for perm in perms:
            app_label, codename = perm.split(".")
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def delete_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=list(ROLES)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0001_item_log"),
        ("feed", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, delete_roles)]
