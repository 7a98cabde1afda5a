"""AITOP's URLs: the public site at the root, the admin under /admin/, the API under /api/."""

from django.contrib import admin
from django.urls import include, path

from feed.urls import site_urlpatterns

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("api.urls")),
    # Staff-only pages outside the admin (the preview of drafts).
    path("editorial/", include("editorial.urls")),
    *site_urlpatterns,
    path("", include("feed.urls")),
]
