"""Both editorial roles may register webhooks, read the delivery log and retry a delivery.

Webhooks grants its own permissions (editorial's 0003 used to). On a database
where that old version already ran, this adds nothing new. The list is copied
here on purpose: a migration keeps doing what it did.
"""

from django.db import migrations

from editorial.migrations._grants import grant_permissions, revoke_permissions

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


def grant(apps, schema_editor):
    grant_permissions(apps, GROUPS)


def revoke(apps, schema_editor):
    revoke_permissions(apps, GROUPS)


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0001_initial"),
        # The groups are made there.
        ("editorial", "0002_editorial_roles"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
