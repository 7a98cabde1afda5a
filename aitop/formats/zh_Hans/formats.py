# Django's own zh_Hans MONTH_DAY_FORMAT pads the month ("06月19日"); readers
# expect "6月19日". Everything else falls back to Django's formats.
MONTH_DAY_FORMAT = "n月j日"
