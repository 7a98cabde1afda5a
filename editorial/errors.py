"""Why the workflow refused something, in words the admin and the API show as they are."""


class WorkflowError(Exception):
    """A refused transition or edit; `message` is meant for the person who asked."""

    #: A stable name for API clients (the HTTP layer maps it to a status code).
    code = "refused"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TransitionNotAllowed(WorkflowError):
    """The item is not in a state this move starts from (or someone moved it meanwhile)."""

    code = "not_allowed"


class NotPermitted(WorkflowError):
    """The user lacks the permission this move or edit needs."""

    code = "not_permitted"


class ReasonRequired(WorkflowError):
    """A rejection without a reason."""

    code = "reason_required"


class WhyRequired(WorkflowError):
    """Featuring an item that does not say why readers should read it."""

    code = "why_required"


class FieldNotEditable(WorkflowError):
    """An edit named a field that only the workflow (or nobody) may change."""

    code = "not_editable"


class EditConflict(WorkflowError):
    """Someone else saved the item after the editor read it; nothing was written."""

    code = "conflict"

    def __init__(self, message: str, *, current_version: int, changed_fields: list[str]):
        super().__init__(message)
        self.current_version = current_version
        self.changed_fields = changed_fields
