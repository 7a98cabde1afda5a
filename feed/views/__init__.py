"""The public site: what readers see. Every queryset starts from `Item.objects.visible()`."""
