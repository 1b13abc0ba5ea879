"""Kubernetes quantities (webhook/domain/quantity.py): parsing and the canonical text Kubernetes prints (Quantity.String)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from webhook.domain.quantity import InvalidQuantity, format_quantity, parse_quantity


@pytest.mark.parametrize(
    ("value", "amount"),
    [
        pytest.param("2", Decimal(2), id="plain"),
        pytest.param("500m", Decimal("0.5"), id="milli"),
        pytest.param("8Gi", Decimal(8 * 2**30), id="binary"),
        pytest.param("1e3", Decimal(1000), id="exponent"),
        pytest.param(1.5, Decimal("1.5"), id="json-number"),
    ],
)
def test_parse_quantity(value: str | float, amount: Decimal) -> None:
    assert parse_quantity(value) == amount


@pytest.mark.parametrize("value", ["", "1x", "Gi", "1.2.3"])
def test_parse_quantity_refuses_other_text(value: str) -> None:
    with pytest.raises(InvalidQuantity):
        parse_quantity(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param("0", "0", id="zero"),
        pytest.param("2", "2", id="plain"),
        pytest.param("2000", "2k", id="thousands-get-a-suffix"),
        pytest.param("1000m", "1", id="whole-milli"),
        pytest.param("1.5", "1500m", id="fraction-in-milli"),
        pytest.param("12e-3", "12e-3", id="exponent-stays"),
        pytest.param("100Mi", "100Mi", id="binary"),
        pytest.param("1.5Gi", "1536Mi", id="binary-fraction"),
        pytest.param("0.5Ki", "512", id="small-binary-is-decimal"),
        pytest.param("-100Mi", "-100Mi", id="negative-binary"),
        pytest.param("-1", "-1", id="negative"),
        pytest.param("0.1n", "1n", id="rounded-up-to-nano"),
        pytest.param(0.5, "500m", id="json-number"),
    ],
)
def test_format_quantity_is_canonical(value: str | float, text: str) -> None:
    assert format_quantity(value) == text
