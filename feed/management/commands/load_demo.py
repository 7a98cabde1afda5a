from django.conf import settings
from django.core.management.base import BaseCommand

from feed.demo import demo_load
from feed.demo_accounts import demo_accounts_ensure


class Command(BaseCommand):
    help = (
        "Load the demo sources and items (running it again changes nothing). With DEBUG on, "
        "or with --accounts, also make sure the demo logins exist and print them."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--accounts",
            action="store_true",
            help="Create the demo logins even with DEBUG off (never do this in production).",
        )

    def handle(self, *args, accounts: bool, **options):
        result = demo_load()
        self.stdout.write(
            f"Demo content: {result.sources_created} sources and "
            f"{result.items_created} items created."
        )
        if not (settings.DEBUG or accounts):
            return
        for login in demo_accounts_ensure():
            if login.password_works:
                self.stdout.write(
                    self.style.SUCCESS(
                        f"Demo {login.role}: user {login.username!r}, "
                        f"password {login.password!r} at /admin/"
                    )
                )
            else:
                self.stdout.write(
                    f"Demo {login.role}: user {login.username!r} exists with a changed password."
                )
