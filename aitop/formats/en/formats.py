# A news stream reads times as 09:50, not "9:50 a.m.".
TIME_FORMAT = "H:i"
# Day headings of earlier years: "June 19, 2025" (Django's own is "Jun. 19, 2025").
DATE_FORMAT = "F j, Y"
DATETIME_FORMAT = "F j, Y, H:i"
