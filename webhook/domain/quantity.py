"""Kubernetes resource quantities (`2`, `8Gi`, `500m`, `1e3`), parsed into exact decimals and rendered back.

Source: k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity grammar and suffixes, CanonicalizeBytes),
amount.go (AsCanonicalBytes, AsCanonicalBase1024Bytes), suffix.go.
"""

from __future__ import annotations

from decimal import ROUND_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Final

from webhook.goport.goregexp import compile_go

QUANTITY_FORMAT: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY: Final = compile_go(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
_BINARY: Final = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_EXPONENT: Final = compile_go(r"^[eE]([+-]?[0-9]+)$")
_BINARY_SUFFIXES: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIXES: Final = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_NANO: Final = Decimal("1e-9")


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


def format_quantity(value: str | float) -> str:
    """A quantity as Kubernetes renders it (Quantity.String): `1500m`, `2k`, `1536Mi`, `1e3` stays in its notation.

    The notation follows the suffix given: binary (`Ki`…) stays binary when the value is a whole number of at least
    1024 (else decimal), an `e` exponent stays an exponent, everything else is decimal SI. Values are rounded up to
    nano precision first, as ParseQuantity does. Raises InvalidQuantity as `parse_quantity` does.
    """
    amount = parse_quantity(value)
    text = value if isinstance(value, str) else repr(value)
    match = _QUANTITY.match(text)
    suffix = match.group(2) if match is not None else ""
    if int(amount.as_tuple().exponent) < -9:  # parsed amounts are finite: the exponent is an int
        amount = amount.quantize(_NANO, rounding=ROUND_UP)
    if amount == 0:
        return "0"
    if suffix in _BINARY and abs(amount) >= 1024 and amount == amount.to_integral_value():
        number, power = int(amount), 0
        while number % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
            number, power = number // 1024, power + 1
        return f"{number}{_BINARY_SUFFIXES[power]}"
    sign, digits, power10 = amount.normalize().as_tuple()
    mantissa = int("".join(map(str, digits))) * (-1 if sign else 1)
    shift = int(power10) % 3  # down to a multiple of 3, as AsCanonicalBytes
    mantissa, exponent = mantissa * 10**shift, int(power10) - shift
    if _EXPONENT.match(suffix) is None and exponent in _DECIMAL_SUFFIXES:
        return f"{mantissa}{_DECIMAL_SUFFIXES[exponent]}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)
