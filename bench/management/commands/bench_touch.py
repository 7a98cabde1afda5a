"""`manage.py bench_touch` (benchmark settings only): one visible change through the workflow."""

from django.core.management.base import BaseCommand, CommandError

from bench.touch import bench_touch


class Command(BaseCommand):
    help = "Publish, reject or restore one item through the workflow, as an editor would."

    def handle(self, *args, **options):
        try:
            item = bench_touch()
        except LookupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"item {item.pk} is now {item.status}")
