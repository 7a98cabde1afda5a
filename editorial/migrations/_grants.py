"""Granting and revoking group permissions inside data migrations (kept stable on purpose)."""

from django.contrib.auth.management import create_permissions


def grant_permissions(apps, permissions_by_group: dict[str, list[str]]) -> None:
    """Give each group these "app.codename" permissions, creating them first if needed."""
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


def revoke_permissions(apps, permissions_by_group: dict[str, list[str]]) -> None:
    """Take these permissions away from each group again (the reverse of a grant)."""
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
