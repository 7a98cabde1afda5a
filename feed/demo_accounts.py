"""Demo logins for a development install, so a newcomer can open the admin at once."""

from collections.abc import Callable
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

# Other apps add their demo logins here (editorial: the editor and the chief
# editor), so this module needs to know nothing about their roles.
_providers: list[Callable[[], list["DemoLogin"]]] = []


def demo_logins_register(provider: Callable[[], list["DemoLogin"]]) -> None:
    """Have `demo_accounts_ensure` also create (and report) the logins `provider` makes."""
    if provider not in _providers:
        _providers.append(provider)


def demo_accounts_ensure() -> list[DemoLogin]:
    """Make sure the demo logins exist; never reset a password someone changed."""
    User = get_user_model()
    username, password = DEMO_ADMIN
    user, created = User.objects.get_or_create(
        username=username, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(password)
        user.save(update_fields=["password"])
    logins = [
        DemoLogin(
            role="admin",
            username=username,
            password=password,
            password_works=user.check_password(password),
        )
    ]
    for provider in _providers:
        logins.extend(provider())
    return logins
