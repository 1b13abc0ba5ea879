"""Kubernetes resource quantities (`2`, `8Gi`, `500m`, `1e3`), parsed into exact decimals.

Source: k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity grammar and suffixes).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Final

QUANTITY_FORMAT: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY: Final = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
_BINARY: Final = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_EXPONENT: Final = re.compile(r"^[eE]([+-]?[0-9]+)$")


class InvalidQuantity(ValueError):
    """Raised by `parse_quantity` for a value that is not a Kubernetes quantity."""


def parse_quantity(value: str | float) -> Decimal:
    """Parse a quantity given as JSON string or number into its exact value (bytes, cores, …).

    Raises InvalidQuantity when the value does not follow the quantity grammar.
    """
    if isinstance(value, bool):
        raise InvalidQuantity("quantities must be strings or numbers")
    return _parse_quantity(value)


# Remembered (bounded; typed, so that 1 and 1.0 stay apart): every machine type of a profile has three quantities,
# mostly the same few strings, on every request. Decimal values are immutable; InvalidQuantity is raised anew.
@lru_cache(maxsize=4096, typed=True)
def _parse_quantity(value: str | float) -> Decimal:
    text = value if isinstance(value, str) else repr(value)
    m = _QUANTITY.match(text)
    if m is None:
        raise InvalidQuantity(f"quantities must match the regular expression '{QUANTITY_FORMAT}'")
    number, suffix = m.group(1), m.group(2)
    try:
        amount = Decimal(number)
    except InvalidOperation:
        raise InvalidQuantity(f"quantities must match the regular expression '{QUANTITY_FORMAT}'") from None
    if suffix in _BINARY:
        return amount * _BINARY[suffix]
    if suffix in _DECIMAL:
        return amount.scaleb(_DECIMAL[suffix])
    exp = _EXPONENT.match(suffix)
    if exp is not None and abs(int(exp.group(1))) < 10_000:
        return amount.scaleb(int(exp.group(1)))
    raise InvalidQuantity("unable to parse quantity's suffix")
