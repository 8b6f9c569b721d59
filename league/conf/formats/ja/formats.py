"""One date format on every page, in both languages: 2026/11/22 (as clubs write it), with the
time as 2026/11/22 19:05. Anything not set here is Django's own for the language."""

DATE_FORMAT = "Y/m/d"
SHORT_DATE_FORMAT = "Y/m/d"
DATETIME_FORMAT = "Y/m/d H:i"
SHORT_DATETIME_FORMAT = "Y/m/d H:i"
