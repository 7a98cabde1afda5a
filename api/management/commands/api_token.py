"""Create, list and revoke API tokens from the command line."""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from api.models import ApiToken
from api.tokens import token_create, token_revoke


class Command(BaseCommand):
    help = "Create (the key is printed once), list or revoke API tokens."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="a new token for USER; prints its key once")
        create.add_argument("username")
        create.add_argument("--name", default="", help="what the token is for (default: cli)")
        create.add_argument("--expires-days", type=int, help="valid for this many days")
        listing = sub.add_parser("list", help="tokens (of USER), without their keys")
        listing.add_argument("username", nargs="?")
        revoke = sub.add_parser("revoke", help="revoke the token with this prefix")
        revoke.add_argument("prefix")

    def handle(self, *args, action, **options):
        getattr(self, f"handle_{action}")(**options)

    def handle_create(self, *, username, name, expires_days, **_options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        if expires_days is not None and expires_days < 1:
            raise CommandError("--expires-days must be 1 or more.")
        expires_at = (
            timezone.now() + datetime.timedelta(days=expires_days) if expires_days else None
        )
        token, key = token_create(user=user, name=name or "cli", expires_at=expires_at)
        self.stderr.write(
            f"Token {token.prefix}… for {username}: copy the key now, it is not kept."
        )
        self.stdout.write(key)

    def handle_list(self, *, username, **_options):
        tokens = ApiToken.objects.select_related("user").order_by("user__username", "created_at")
        if username:
            tokens = tokens.filter(user__username=username)
        for token in tokens:
            state = "revoked" if token.revoked_at else "active" if token.is_active() else "expired"
            used = token.last_used_at.isoformat() if token.last_used_at else "never"
            self.stdout.write(
                f"{token.prefix}  {token.user.username}  {token.name}  {state}  last used {used}"
            )

    def handle_revoke(self, *, prefix, **_options):
        token = ApiToken.objects.filter(prefix=prefix).first()
        if token is None:
            raise CommandError(f"No token with prefix {prefix!r}.")
        if not token_revoke(token=token):
            raise CommandError(f"Token {prefix} was already revoked.")
        self.stdout.write(f"Revoked {prefix}.")
