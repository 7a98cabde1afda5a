"""The demo editor and chief editor, so a newcomer can work the queue in both roles."""

from django.contrib.auth import get_user_model

from editorial.roles import CHIEF_EDITORS, EDITORS, roles_ensure
from feed.demo_accounts import DemoLogin

DEMO_STAFF = [
    ("editor", "editor", "aitop-demo-editor", EDITORS),
    ("chief editor", "chief", "aitop-demo-chief", CHIEF_EDITORS),
]


def demo_staff_ensure() -> list[DemoLogin]:
    """Make sure the demo editor and chief editor exist; never reset a changed password."""
    groups = roles_ensure()
    User = get_user_model()
    logins = []
    for role, username, password, group in DEMO_STAFF:
        user, created = User.objects.get_or_create(username=username, defaults={"is_staff": True})
        if created:
            user.set_password(password)
            user.save(update_fields=["password"])
            user.groups.add(groups[group])
        logins.append(
            DemoLogin(
                role=role,
                username=username,
                password=password,
                password_works=user.check_password(password),
            )
        )
    return logins
