"""Go's `strconv.Atoi`, whose error text Gardener shows in field errors (kubeMaxPDVols, cron specs).

Source: golang/go src/strconv/atoi.go (Atoi, ParseInt, NumError.Error), on a 64-bit platform.
"""

from __future__ import annotations

from typing import Final

from webhook.goport.gourl import go_quote

_INT64_MAX: Final = (1 << 63) - 1


class NumError(ValueError):
    """A number Go's strconv refuses; str(exc) is Go's text: `strconv.Atoi: parsing "x": invalid syntax`."""


def atoi(text: str) -> int:
    """Go's strconv.Atoi: an optional sign and decimal digits within int64. Raises NumError with Go's text."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or any(c not in "0123456789" for c in digits):
        raise NumError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    negative = text[0] == "-"
    number = int(digits)
    if number > _INT64_MAX + (1 if negative else 0):
        raise NumError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return -number if negative else number


__all__ = ["NumError", "atoi"]
