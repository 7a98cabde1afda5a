"""Demo logins for a development install, so a newcomer can open the admin at once."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model


@dataclass(frozen=True)
class DemoLogin:
    role: str
    username: str
    password: str
    #: False when the account exists but its password was changed since.
    password_works: bool


DEMO_ADMIN = ("admin", "aitop-demo-admin")


def demo_accounts_ensure() -> list[DemoLogin]:
    """Make sure the demo admin exists; never reset a password someone changed."""
    User = get_user_model()
    username, password = DEMO_ADMIN
    user, created = User.objects.get_or_create(
        username=username, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(password)
        user.save(update_fields=["password"])
    return [
        DemoLogin(
            role="admin",
            username=username,
            password=password,
            password_works=user.check_password(password),
        )
    ]
