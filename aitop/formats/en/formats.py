# A news stream reads times as 09:50, not "9:50 a.m.".
TIME_FORMAT = "H:i"
