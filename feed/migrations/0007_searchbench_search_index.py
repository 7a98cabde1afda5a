"""Indexed search (feed/search.py): pg_trgm and short-gram GIN indexes, or SQLite FTS5."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

from feed.search_schema import search_schema_create, search_schema_drop


def forwards(apps, schema_editor):
    search_schema_create(connection=schema_editor.connection)


def backwards(apps, schema_editor):
    search_schema_drop(connection=schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('feed', '0006_desk_item_revisions'),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(forwards, backwards),
    ]
