"""Move DRF's plain-text tokens into hashed ApiTokens, then delete the plain-text copies."""

import hashlib

from django.db import migrations


def forwards(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("api", "ApiToken")
    for old in Token.objects.all():
        ApiToken.objects.create(
            user_id=old.user_id,
            name="migrated DRF token",
            prefix=old.key[:8],
            digest=hashlib.sha256(old.key.encode()).hexdigest(),
            created_at=old.created,
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_hardening_api_tokens"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    # The plain-text keys are gone once migrated: going back leaves the hashed ones.
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
