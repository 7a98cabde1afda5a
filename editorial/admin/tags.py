"""Tags in the item form: typed freely, existing ones suggested as the editor types."""

import json

from django import forms
from django.conf import settings
from django.contrib.admin.widgets import get_select2_language
from django.core.validators import ProhibitNullCharactersValidator
from django.http import HttpRequest, HttpResponseBadRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from taggit.models import Tag

from aitop.nul import NUL
from editorial.edits import tag_names_clean

SUGGESTIONS_PER_PAGE = 20
# Tag.name's length.
TAG_NAME_MAX = 100


class TagAutocompleteWidget(forms.SelectMultiple):
    """The admin's own select2, in "tags" mode: suggestions come by AJAX, new names are kept.

    It reuses the admin's autocomplete.js, which turns every `.admin-autocomplete`
    select into a select2 reading its options from the `data-*` attributes.
    """

    def __init__(self, *, url_name: str, attrs=None):
        super().__init__(attrs=attrs)
        self.url_name = url_name

    def build_attrs(self, base_attrs, extra_attrs=None):
        attrs = super().build_attrs(base_attrs, extra_attrs=extra_attrs)
        classes = attrs.get("class", "")
        attrs.update(
            {
                "class": f"{classes} admin-autocomplete".strip(),
                "data-ajax--url": reverse(self.url_name),
                "data-ajax--cache": "true",
                "data-ajax--delay": 250,
                "data-ajax--type": "GET",
                "data-theme": "admin-autocomplete",
                "data-tags": "true",
                # Typing a comma (either width) ends a tag, as in taggit's text field.
                "data-token-separators": json.dumps([",", "，"]),
                "data-allow-clear": "false",
                "data-placeholder": "",
                "lang": get_select2_language(),
            }
        )
        return attrs

    def optgroups(self, name, value, attrs=None):
        """Only the chosen tags are options; the rest arrive as suggestions."""
        options = [
            self.create_option(name, tag_name, tag_name, True, index)
            for index, tag_name in enumerate(value)
            if tag_name
        ]
        return [(None, options, 0)]

    def format_value(self, value):
        return [_name(v) for v in value or []]

    @property
    def media(self):
        suffix = "" if settings.DEBUG else ".min"
        language = get_select2_language()
        i18n = (f"admin/js/vendor/select2/i18n/{language}.js",) if language else ()
        return forms.Media(
            js=(
                f"admin/js/vendor/jquery/jquery{suffix}.js",
                f"admin/js/vendor/select2/select2.full{suffix}.js",
                *i18n,
                "admin/js/jquery.init.js",
                "admin/js/autocomplete.js",
            ),
            css={
                "screen": (
                    f"admin/css/vendor/select2/select2{suffix}.css",
                    "admin/css/autocomplete.css",
                )
            },
        )


class TagNamesField(forms.Field):
    """A list of tag names, existing or new; cleans to the names `item_edit` expects."""

    widget = TagAutocompleteWidget
    default_error_messages = {
        "too_long": gettext_lazy("A tag may have at most %(max)d characters: “%(name)s”."),
    }

    def __init__(self, *, url_name: str, **kwargs):
        kwargs.setdefault("widget", TagAutocompleteWidget(url_name=url_name))
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return [_name(v) for v in value or []]

    def to_python(self, value) -> list[str]:
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        names = tag_names_clean(str(v) for v in value)
        for name in names:
            ProhibitNullCharactersValidator()(name)
            if len(name) > TAG_NAME_MAX:
                raise forms.ValidationError(
                    self.error_messages["too_long"] % {"max": TAG_NAME_MAX, "name": name[:40]},
                    code="too_long",
                )
        return names

    def has_changed(self, initial, data) -> bool:
        try:
            new = self.to_python(data)
        except forms.ValidationError:
            return True
        return sorted(new) != sorted(_name(v) for v in initial or [])


def _name(value) -> str:
    return value.name if isinstance(value, Tag) else str(value)


def tag_suggestions(request: HttpRequest, *, allowed: bool):
    """Existing tags whose name contains the typed text, in select2's JSON shape."""
    if not allowed:
        return JsonResponse({"error": _("You may not edit items.")}, status=403)
    term = request.GET.get("term", "").strip()
    if NUL in term:
        return HttpResponseBadRequest(_("The text typed contains a NUL character."))
    try:
        page = max(int(request.GET.get("page") or 1), 1)
    except ValueError:
        page = 1
    start = (page - 1) * SUGGESTIONS_PER_PAGE
    tags = Tag.objects.order_by("name")
    if term:
        tags = tags.filter(name__icontains=term)
    names = list(tags.values_list("name", flat=True)[start : start + SUGGESTIONS_PER_PAGE + 1])
    return JsonResponse(
        {
            "results": [{"id": n, "text": n} for n in names[:SUGGESTIONS_PER_PAGE]],
            "pagination": {"more": len(names) > SUGGESTIONS_PER_PAGE},
        }
    )
