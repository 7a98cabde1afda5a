from django.urls import path

from feed import views

app_name = "feed"

urlpatterns = [
    path("", views.stream, name="stream"),
    # `str`, not `slug`: tag and item slugs keep Chinese characters.
    path("tags/<str:slug>/", views.tag_stream, name="tag"),
    path("items/<int:pk>/<str:slug>/", views.item_detail, name="item-detail"),
]
