"""Shared pydantic building blocks for the kinds we read.

Decoding follows Go's encoding/json as the API server applies it: a JSON `null` leaves a slice, map or string
at its zero value, numbers are never coerced into strings (nor the reverse), and `metav1.Time` is RFC 3339.
Only the fields a rule reads are modelled; everything else passes through untouched (`extra="ignore"`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Any, Final, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, PlainValidator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from webhook.goport.goregexp import compile_go
from webhook.goport.gotime import InvalidTime, parse_duration

T = TypeVar("T")

_RFC3339: Final = compile_go(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")


def _null_to_empty_list(value: Any) -> Any:
    return [] if value is None else value


def _null_to_empty_dict(value: Any) -> Any:
    return {} if value is None else value


def _null_to_empty_str(value: Any) -> Any:
    return "" if value is None else value


def parse_rfc3339(value: Any) -> datetime | None:
    """Decode a `metav1.Time`: null or an RFC 3339 string; returns an aware UTC datetime.

    Raises PydanticCustomError("rfc3339") for anything else (date-only strings included, as Go does).
    """
    if value is None:
        return None
    if isinstance(value, datetime):  # already decoded (tests, model_copy)
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        raise PydanticCustomError("rfc3339", "must be an RFC 3339 date-time")
    return _parse_rfc3339_text(value)


# Remembered (bounded): a profile repeats a handful of expiration dates over hundreds of versions, on every request.
# datetimes are immutable; the error is raised anew for each bad value (lru_cache keeps only results).
@lru_cache(maxsize=4096)
def _parse_rfc3339_text(value: str) -> datetime:
    if not _RFC3339.match(value):
        raise PydanticCustomError("rfc3339", "must be an RFC 3339 date-time")
    try:
        return datetime.fromisoformat(value.replace("z", "Z").replace("t", "T")).astimezone(UTC)
    except ValueError:
        raise PydanticCustomError("rfc3339", "must be an RFC 3339 date-time") from None


def parse_go_duration(value: Any) -> int | None:
    """Decode a `metav1.Duration`: null or a Go duration string (`90s`, `1h30m`); returns nanoseconds.

    Raises PydanticCustomError("duration") for anything else, as Go's time.ParseDuration refuses it.
    """
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):  # already decoded (tests, model_copy)
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("duration", "must be a duration")
    try:
        return parse_duration(value)
    except InvalidTime:
        raise PydanticCustomError("duration", "must be a duration") from None


def format_date(value: datetime) -> str:
    """Render a datetime the way messages name dates: YYYY-MM-DD (UTC)."""
    return value.astimezone(UTC).strftime("%Y-%m-%d")


def format_rfc3339(value: datetime) -> str:
    """Render a datetime as Kubernetes stores metav1.Time: 2006-01-02T15:04:05Z."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _dump_rfc3339(value: datetime | None) -> str | None:
    return None if value is None else format_rfc3339(value)


def _fits(bits: int) -> AfterValidator:
    """Go's JSON decoding refuses a number its intN field cannot hold (the API server answers 400)."""
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: int) -> int:
        if not low <= value <= high:
            raise PydanticCustomError(f"int{bits}", f"must be a {bits}-bit integer")
        return value

    return AfterValidator(check)


# Go's int32 and int64 fields: a JSON number outside their range is refused as Go's encoding/json refuses it.
Int32 = Annotated[int, _fits(32)]
Int64 = Annotated[int, _fits(64)]
# A JSON dump writes the RFC 3339 text the API server stores. Without the serializer pydantic's JSON dump of the
# validated datetime warns (PydanticSerializationUnexpectedValue) once per field, as audit --kubeconfig showed.
Time = Annotated[
    datetime | None,
    PlainValidator(parse_rfc3339),
    PlainSerializer(_dump_rfc3339, return_type=str | None, when_used="json"),
]
List = Annotated[list[T], BeforeValidator(_null_to_empty_list)]
Str = Annotated[str, BeforeValidator(_null_to_empty_str)]
StrMap = Annotated[dict[str, Str], BeforeValidator(_null_to_empty_dict)]
BoolMap = Annotated[dict[str, bool], BeforeValidator(_null_to_empty_dict)]
# A Go struct field that is not a pointer (`Kubernetes Kubernetes`): JSON null leaves it at its zero value.
Struct = Annotated[T, BeforeValidator(_null_to_empty_dict)]
# metav1.Duration, in nanoseconds (Go's time.Duration).
Duration = Annotated[int | None, PlainValidator(parse_go_duration)]
# Capabilities: capability name -> values (core.Capabilities).
CapabilityMap = Annotated[dict[str, List[str]], BeforeValidator(_null_to_empty_dict)]
# Quantities (resource.Quantity) arrive as JSON strings or numbers; webhook.domain.quantity parses them.
Quantity = str | int | float
# corev1.ResourceList: resource name -> quantity.
ResourceList = Annotated[dict[str, Quantity], BeforeValidator(_null_to_empty_dict)]


class Model(BaseModel):
    """Base of every API model: frozen, camelCase aliases, strict types, unknown fields ignored."""

    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        strict=True,
    )


class ObjectMeta(Model):
    """The metadata fields rules read (apimachinery ObjectMeta)."""

    name: Str = ""
    generate_name: Str = ""
    namespace: Str = ""
    uid: Str = ""  # read by no rule: audit's PolicyReports name each object by it
    labels: StrMap = Field(default_factory=dict)
    annotations: StrMap = Field(default_factory=dict)
    creation_timestamp: Time = None
    deletion_timestamp: Time = None


class KubernetesObject(Model):
    """Any object: apiVersion, kind, metadata."""

    api_version: Str = ""
    kind: Str = ""
    metadata: ObjectMeta = ObjectMeta()
