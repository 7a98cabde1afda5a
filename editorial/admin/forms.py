"""The item's change form and its list-editable row form, both checked for concurrent edits."""

from django import forms
from django.contrib.admin.widgets import AdminSplitDateTime
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

from editorial.admin.tags import TagNamesField
from editorial.edits import EDITABLE_FIELDS, edit_conflict
from feed.identity import DuplicateURL, item_url_check, item_url_clean
from feed.models import Item

TAG_AUTOCOMPLETE_URL = "admin:feed_item_tag_autocomplete"
KEPT_INPUT = gettext_lazy(
    "Nothing was saved. Your input is kept below: compare it with the current item "
    "(open it in another tab), then save again to keep your version."
)


class VersionCheckedForm(forms.ModelForm):
    """A form that refuses to save over a version of the item it has not seen.

    `expected_version` travels in the page; if the item's version has moved on
    when the form comes back, the form is invalid, keeps what was typed, and
    now carries the current version, so saving again is a deliberate choice.
    The database check happens again at write time (`item_edit`).
    """

    expected_version = forms.IntegerField(
        widget=forms.HiddenInput, min_value=1, label=gettext_lazy("version seen")
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["expected_version"].initial = self.instance.version
        else:
            self.fields["expected_version"].required = False

    @property
    def changed_data(self) -> list[str]:
        return [name for name in super().changed_data if name != "expected_version"]

    def edited_values(self) -> dict:
        """The editable fields this form changed, as `item_edit` takes them."""
        return {
            name: self.cleaned_data[name] for name in self.changed_data if name in EDITABLE_FIELDS
        }

    def clean(self):
        cleaned = super().clean()
        expected = cleaned.get("expected_version")
        stale = self.instance.pk and expected is not None and expected != self.instance.version
        if stale and self.changed_data:
            conflict = edit_conflict(self.instance)
            self._report_conflict(f"{conflict.message} {KEPT_INPUT}")
            # What was typed stays; the page now holds the version it was
            # compared with, so the next save is an informed overwrite.
            self.data = self.data.copy()
            self.data[self.add_prefix("expected_version")] = str(conflict.current_version)
        return cleaned

    def _report_conflict(self, message: str) -> None:
        self.add_error(None, message)


class ItemForm(VersionCheckedForm):
    """The change form: editable fields, tags with suggestions, and a publish time."""

    tags = TagNamesField(url_name=TAG_AUTOCOMPLETE_URL, label=gettext_lazy("tags"))
    publish_at = forms.SplitDateTimeField(
        label=gettext_lazy("publish at"),
        required=False,
        widget=AdminSplitDateTime,
        help_text=gettext_lazy(
            "For “Save and publish” and “Save and feature”: leave empty to publish now; "
            "a time in the future schedules the item."
        ),
    )

    class Meta:
        model = Item
        fields = list(EDITABLE_FIELDS)

    def clean_url(self) -> str:
        """The URL as items store it, refused where another item has it (as `item_edit` would)."""
        try:
            url = item_url_clean(self.cleaned_data["url"])
            item_url_check(url, exclude_pk=self.instance.pk)
        except ValidationError as error:
            raise ValidationError(error.message_dict["url"]) from None
        except DuplicateURL as error:
            raise ValidationError(error.message, code=error.code) from None
        return url


class ItemListForm(VersionCheckedForm):
    """One row of the queue's editable columns (category, heat)."""

    class Meta:
        model = Item
        fields = ["category", "heat"]

    def _report_conflict(self, message: str) -> None:
        # The queue shows errors next to the cells, so put it on what was changed.
        for name in self.changed_data:
            self.add_error(name, message)
