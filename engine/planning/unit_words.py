"""The units a parameter's name may end with, as a request writes them after a number.

:func:`schemarouter.planning.arguments.fill_arguments` binds "a 3 kg parcel" to
``weight_kg`` and "an 89.90 EUR order" to ``order_total_eur`` by this table: a name's last
``_`` part (``weightKg`` reads as ``weight_kg``) is looked up, and the number written with one
of its spellings after it is the value.
"""

from __future__ import annotations

#: A unit a parameter's name may end with, and how a request writes it after a number (in
#: Korean too, by the unit's full name: "2.5킬로그램", "30센티미터", "3시간", "50,000원"; the
#: bare 킬로 is a kilogram or a kilometre, so it binds neither).
NAME_UNITS = {
    "kg": "kg|kgs|kilos?|kilograms?|킬로그램",
    "g": "g|grams?|그램",
    "lb": "lbs?|pounds?",
    "km": "km|kilometers?|kilometres?|킬로미터",
    "m": "m|meters?|metres?|미터",
    "cm": "cm|centimeters?|centimetres?|센티미터|센티|센치",
    "mm": "mm|millimeters?|millimetres?|밀리미터",
    "mi": "mi|miles?",
    "s": "s|secs?|seconds?|초",
    "sec": "s|secs?|seconds?|초",
    "seconds": "s|secs?|seconds?|초",
    "ms": "ms|milliseconds?",
    "minutes": "mins?|minutes?|분",
    "h": "h|hrs?|hours?|시간",
    "hours": "h|hrs?|hours?|시간",
    "krw": "krw|won|원",
    "won": "krw|won|원",
    # a money amount a name ends with (``order_total_eur``: "an 89.90 EUR order"); only the
    # currency the name says, never another (no rate is known here), and not ``_cents``,
    # which "49 EUR" does not give
    "eur": "eur|euros?|€",
    "usd": "usd|us dollars?|dollars?",
    "gbp": "gbp|pounds? sterling|£",
    "chf": "chf|swiss francs?",
    "jpy": "jpy|yen|¥",
    "days": "days?",
    "mb": "mb|megabytes?",
    "gb": "gb|gigabytes?",
    "pct": "%|percent|pct",
    "percent": "%|percent|pct",
    # a lab's readings (trial X3: ``temperature_c`` "-79 °C", ``final_volume_ml`` "50 mL")
    "c": r"°\s?c|℃|deg\.?\s?c|degrees?\s+c(?:elsius)?|celsius",
    "ml": "ml|milliliters?|millilitres?|밀리리터",
}
