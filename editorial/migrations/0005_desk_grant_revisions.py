"""Chief editors may change a live item's text and accept revisions; both roles see revisions.

The lists are copied here on purpose: a migration keeps doing what it did.
"""

from django.db import migrations

from editorial.migrations._grants import grant_permissions, revoke_permissions

SEEN_BY_BOTH = ["feed.view_itemrevision", "editorial.view_itemrecommendation"]
GROUPS = {
    "Editors": SEEN_BY_BOTH,
    "Chief editors": [*SEEN_BY_BOTH, "feed.change_live_item"],
}


def grant(apps, schema_editor):
    grant_permissions(apps, GROUPS)


def revoke(apps, schema_editor):
    revoke_permissions(apps, GROUPS)


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0004_desk_revisions_recommend"),
        ("feed", "0006_desk_item_revisions"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
