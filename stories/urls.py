"""The daily brief's addresses: /daily/<date>/ and its three feeds."""

from django.urls import path

from feed import converters  # noqa: F401  (registers the `day` converter used below)
from stories import views

app_name = "stories"

# `day` is a YYYY-MM-DD date (feed/converters.py); a bad date is a 404.
urlpatterns = [
    path("daily/<day:day>/", views.daily, name="daily"),
    path("daily/<day:day>/feed.xml", views.daily_rss, name="daily-rss"),
    path("daily/<day:day>/feed.atom", views.daily_atom, name="daily-atom"),
    path("daily/<day:day>/feed.json", views.daily_json, name="daily-json"),
]
