from django.urls import path

from editorial import views

app_name = "editorial"

urlpatterns = [
    path("preview/<int:pk>/stream/", views.preview_stream, name="preview-stream"),
    path("preview/<int:pk>/item/", views.preview_item, name="preview-item"),
]
