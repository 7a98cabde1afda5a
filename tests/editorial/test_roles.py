"""The Editors and Chief editors groups, and the demo logins in those roles."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader

from editorial.roles import CHIEF_EDITORS, EDITORS, role_permissions, roles_ensure

pytestmark = pytest.mark.django_db


def group_permissions(name: str) -> set[str]:
    group = Group.objects.get(name=name)
    return {
        f"{perm.content_type.app_label}.{perm.codename}"
        for perm in group.permissions.select_related("content_type")
    }


def test_the_migration_created_both_groups_with_their_permissions():
    # The database was built by the migrations; nothing else made the groups.
    roles = role_permissions()
    assert group_permissions(EDITORS) == set(roles[EDITORS])
    assert group_permissions(CHIEF_EDITORS) == set(roles[CHIEF_EDITORS])


def test_editors_may_work_the_webhooks_that_app_grants():
    assert {"webhooks.add_webhook", "webhooks.change_delivery"} <= group_permissions(EDITORS)


def test_editorial_migrates_without_the_apps_built_on_it():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    needed = {app for app, _name in graph.forwards_plan(graph.leaf_nodes("editorial")[0])}
    assert not needed & {"webhooks", "api", "stories", "enrichment"}


def test_editors_may_not_publish_feature_or_reject():
    assert not {
        "feed.publish_item",
        "feed.feature_item",
        "feed.unfeature_item",
        "feed.reject_item",
        "feed.restore_item",
        "feed.delete_item",
    } & group_permissions(EDITORS)


def test_ensuring_the_roles_keeps_permissions_added_by_hand():
    editors = Group.objects.get(name=EDITORS)
    extra = editors.permissions.model.objects.get(codename="delete_source")
    editors.permissions.add(extra)

    roles_ensure()

    assert "feed.delete_source" in group_permissions(EDITORS)
    assert set(role_permissions()[EDITORS]) <= group_permissions(EDITORS)


def test_the_demo_prints_working_editor_and_chief_editor_logins(capsys):
    call_command("load_demo", "--accounts")

    out = capsys.readouterr().out
    assert "Demo editor: user 'editor', password 'aitop-demo-editor' at /admin/" in out
    assert "Demo chief editor: user 'chief', password 'aitop-demo-chief' at /admin/" in out
    User = get_user_model()
    editor, chief = User.objects.get(username="editor"), User.objects.get(username="chief")
    assert editor.is_staff and not editor.is_superuser
    assert editor.check_password("aitop-demo-editor") and chief.check_password("aitop-demo-chief")
    assert editor.has_perm("feed.change_item") and not editor.has_perm("feed.publish_item")
    assert chief.has_perm("feed.publish_item") and chief.has_perm("feed.feature_item")


def test_a_changed_demo_password_is_left_alone(capsys):
    call_command("load_demo", "--accounts", stdout=io.StringIO())
    chief = get_user_model().objects.get(username="chief")
    chief.set_password("something-private")
    chief.save()

    call_command("load_demo", "--accounts")

    assert "Demo chief editor: user 'chief' exists with a changed password." in (
        capsys.readouterr().out
    )
    chief.refresh_from_db()
    assert chief.check_password("something-private")
