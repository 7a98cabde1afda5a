"""AITOP's URLs: the public site at / (and /en/), the admin under /admin/, the API under /api/."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

# The admin is the editors' desk: name it so.
admin.site.site_header = _("AITOP editors' desk")
admin.site.site_title = _("AITOP admin")
# The review queue needs the width at 1280 px (its columns, the filters); the
# breadcrumbs and the home page still lead everywhere the sidebar did.
admin.site.enable_nav_sidebar = False
admin.site.index_title = _("Today on the desk")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("api.urls")),
    # Staff-only pages outside the admin (the preview of drafts).
    path("editorial/", include("editorial.urls")),
    # Included by name, like every app's URLs, so the project package imports no app.
    path("", include("feed.site_urls")),
]
# The public site: Chinese at /, English under /en/ (the URL alone decides: feed/locale.py).
urlpatterns += i18n_patterns(
    path("", include("stories.urls")),
    path("", include("feed.urls")),
    prefix_default_language=False,
)
