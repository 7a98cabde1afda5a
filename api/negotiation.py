"""Which representation a caller gets: the browsable API only for logged-in staff."""

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer


class StaffBrowsableNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, without the HTML renderer for anyone but active staff."""

    def select_renderer(self, request, renderers, format_suffix=None):
        user = getattr(request, "user", None)
        if not (user is not None and user.is_authenticated and user.is_staff):
            renderers = [r for r in renderers if not isinstance(r, BrowsableAPIRenderer)]
        return super().select_renderer(request, renderers, format_suffix)
