"""The one set of reader filters: the stream, its day pages, the feeds and the API share it.

`ItemFilter` only narrows a queryset that is already `Item.objects.visible()`;
it knows nothing of templates or URLs. A value it cannot read makes the form
invalid, and `filterset.errors` names the parameter, so callers answer 400.
"""

import copy
import datetime
import functools

import django_filters
from django import forms
from django.core.validators import ProhibitNullCharactersValidator
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from aitop.days import day_start
from feed.models import Category, Item, Kind

# Longer searches are cut to this, not refused: a pasted paragraph still works.
SEARCH_MAX_LENGTH = 100
# Each tag is one more join; more than this is not a reader's filter.
MAX_TAGS = 10
# Dates outside this range cannot be turned into moments in every time zone.
EARLIEST_DATE = datetime.date(1900, 1, 1)
LATEST_DATE = datetime.date(9998, 12, 31)

FEATURED_CHOICES = [("1", _("Featured only")), ("0", _("Not featured"))]
# Spellings the API's callers send for a yes/no, read as the canonical one.
_FEATURED_SPELLINGS = {"1": "1", "true": "1", "0": "0", "false": "0"}


class SiteDateField(forms.DateField):
    """A YYYY-MM-DD date within the years every time zone can hold."""

    input_formats = ["%Y-%m-%d"]
    default_error_messages = {
        "invalid": _("Enter a date as YYYY-MM-DD."),
        "range": _("Enter a date between 1900-01-01 and 9998-12-31."),
    }

    def validate(self, value):
        super().validate(value)
        if value and not EARLIEST_DATE <= value <= LATEST_DATE:
            raise forms.ValidationError(self.error_messages["range"], code="range")


class MomentField(forms.Field):
    """A date (YYYY-MM-DD, a whole day in the site's time zone) or an ISO 8601 time."""

    default_error_messages = {
        "invalid": _("Enter a date as YYYY-MM-DD or a time as YYYY-MM-DDTHH:MM[:SS][+08:00]."),
        "range": _("Enter a date between 1900-01-01 and 9998-12-31."),
    }

    def to_python(self, value):
        value = (value or "").strip()
        if not value:
            return None
        try:
            day = datetime.date.fromisoformat(value) if len(value) == 10 else None
            moment = None if day else parse_datetime(value)
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        if day is None and moment is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        checked = day or moment.date()
        if not EARLIEST_DATE <= checked <= LATEST_DATE:
            raise forms.ValidationError(self.error_messages["range"], code="range")
        if day is not None:
            return day
        if timezone.is_naive(moment):
            # Typed by a person on our site: the site's time zone (aitop/days.py).
            moment = timezone.make_aware(moment)
        return moment


class SearchField(forms.CharField):
    """Free text, trimmed and cut to `SEARCH_MAX_LENGTH` characters."""

    def to_python(self, value):
        return super().to_python(value)[:SEARCH_MAX_LENGTH].strip()


class FeaturedField(forms.ChoiceField):
    """`1`/`true` for featured items only, `0`/`false` for the others."""

    def __init__(self, **kwargs):
        kwargs.setdefault("choices", [("", ""), *FEATURED_CHOICES])
        super().__init__(**kwargs)

    def to_python(self, value):
        value = super().to_python(value).strip().lower()
        return _FEATURED_SPELLINGS.get(value, value)


class TagsField(forms.Field):
    """A repeated parameter (`?tag=a&tag=b`): a list of tag slugs, duplicates dropped."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {
        "too_many": _("Choose at most %(limit)s tags."),
    }

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(ProhibitNullCharactersValidator())

    def to_python(self, value):
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        slugs = list(dict.fromkeys(slug.strip() for slug in value if slug and slug.strip()))
        if len(slugs) > MAX_TAGS:
            raise forms.ValidationError(
                self.error_messages["too_many"], code="too_many", params={"limit": MAX_TAGS}
            )
        return slugs

    def run_validators(self, value):
        for slug in value:
            super().run_validators(slug)


class TagsFilter(django_filters.Filter):
    field_class = TagsField

    def filter(self, qs, value):
        return qs.tagged(*value) if value else qs


class SearchFilter(django_filters.Filter):
    field_class = SearchField

    def filter(self, qs, value):
        return qs.search(value) if value else qs


class FeaturedFilter(django_filters.Filter):
    field_class = FeaturedField

    def filter(self, qs, value):
        if value == "1":
            return qs.filter(status=Item.Status.FEATURED)
        if value == "0":
            return qs.exclude(status=Item.Status.FEATURED)
        return qs


class MomentFilter(django_filters.Filter):
    """`since` (from this moment or day on) or `until` (up to it, that whole day included)."""

    field_class = MomentField

    def __init__(self, *, bound: str, **kwargs):
        self.bound = bound
        super().__init__(**kwargs)

    def filter(self, qs, value):
        if value is None:
            return qs
        if isinstance(value, datetime.datetime):
            lookup = "gte" if self.bound == "since" else "lte"
            return qs.filter(**{f"published_at__{lookup}": value})
        if self.bound == "since":
            return qs.filter(published_at__gte=day_start(value))
        return qs.filter(published_at__lt=day_start(value + datetime.timedelta(days=1)))


# django-filter deep-copies every filter, builds a form class from their fields
# and deep-copies those fields again into the form, on every request: about
# 0.75 ms of a filtered page's CPU (docs/benchmarks.md, stop 36). None of our
# filters or fields keeps anything of a request (the form is only validated,
# never rendered), so each filterset gets its own shallow copies of the
# class's filters, which share the fields built once here, and one form class
# per filterset class shares them too.


class _FiltersCopiedShallow(dict):
    def __deepcopy__(self, memo):
        # FilterSet.__init__ then sets its own model and parent on each copy.
        return {name: copy.copy(filter_) for name, filter_ in self.items()}


class _FieldsShared(dict):
    def __deepcopy__(self, memo):
        return dict(self)


@functools.cache
def _form_class(filterset_class):
    fields = {name: filter_.field for name, filter_ in filterset_class.base_filters.items()}
    form_class = type(f"{filterset_class.__name__}Form", (filterset_class._meta.form,), fields)
    form_class.base_fields = _FieldsShared(form_class.base_fields)
    return form_class


def _shares_its_filters(filterset_class):
    for filter_ in filterset_class.base_filters.values():
        filter_.field  # noqa: B018 - built now, once, for every copy to share
    filterset_class.base_filters = _FiltersCopiedShallow(filterset_class.base_filters)
    return filterset_class


@_shares_its_filters
class ItemFilter(django_filters.FilterSet):
    """What readers may narrow the stream by; every filter composes with the others."""

    kind = django_filters.ChoiceFilter(choices=Kind.choices, label=_("kind"))
    category = django_filters.ChoiceFilter(choices=Category.choices, label=_("category"))
    tag = TagsFilter(label=_("tags"))
    source = django_filters.CharFilter(field_name="source__slug", label=_("source"))
    featured = FeaturedFilter(label=_("featured"))
    q = SearchFilter(label=_("search"))
    since = MomentFilter(bound="since", label=_("since"))
    until = MomentFilter(bound="until", label=_("until"))

    class Meta:
        model = Item
        fields = []

    def __init__(self, data=None, queryset=None, **kwargs):
        # Never fall back to every item: unpublished ones must not leak.
        if queryset is None:
            queryset = Item.objects.visible()
        super().__init__(data, queryset, **kwargs)

    def get_form_class(self):
        return _form_class(type(self))


def filters_asked(data) -> bool:
    """Whether the query string names any of `ItemFilter`'s filters (blank or not).

    Without one there is nothing to read or refuse, and the filterset would
    build and validate its form only to change nothing (about 0.4 ms of a
    cold page's CPU: docs/benchmarks.md).
    """
    return any(name in data for name in ItemFilter.base_filters)
