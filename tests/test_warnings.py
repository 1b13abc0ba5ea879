"""Warnings in the response: composed to fit the API server's limits, never cut inside a value (docs/design.md §3).

`compose_warning` keeps one warning within 256 characters, `limit_warnings` keeps them within 20 entries and 4096
characters in all; `Outcome.full_warnings` keeps the uncut texts for the CLI.
"""

from __future__ import annotations

import json
import string
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.builders import EMPTY_VIEW, NOW, cloud_profile_dict, image, review_bytes, versions
from tests.validators.osc_cases import CONTAINERD, osc_dict
from webhook.admission.rendering import (
    MAX_WARNING_CHARS,
    MAX_WARNINGS,
    MAX_WARNINGS_TOTAL_CHARS,
    clean_warning,
    clean_warnings,
    compose_warning,
    limit_warnings,
)
from webhook.domain.field import Mode, render_value
from webhook.judging.judge import RATCHETED_PREFIX, Outcome, judge
from webhook.settings import Settings
from webhook.validators.meta import SUBDOMAIN_MESSAGE

UPSTREAM = f"{CONTAINERD}.registries[0].upstream"


def outcome(body: bytes, settings: Settings | None = None) -> Outcome:
    return judge(body, view=EMPTY_VIEW, settings=settings or Settings(), now=NOW)


def osc_with_upstream(upstream: str) -> dict[str, Any]:
    raw = osc_dict()
    raw["spec"]["criConfig"]["containerd"]["registries"] = [{"upstream": upstream}]
    return raw


def elided(value: str) -> str:
    """The documented placeholder for a quoted value: its quotes around `<value of N characters>`."""
    return f"{value[0]}<value of {len(value) - 2} characters>{value[0]}"


# ------------------------------------------------------------------------------------------------ through judge


def test_ratcheted_rfc1123_message_keeps_path_and_value_and_is_cut_between_words() -> None:
    raw = osc_with_upstream("Registry.Example.com")
    out = outcome(review_bytes(raw, raw))
    full = f'{RATCHETED_PREFIX}{UPSTREAM}: Invalid value: "Registry.Example.com": {SUBDOMAIN_MESSAGE}'
    assert out.allowed and len(full) > MAX_WARNING_CHARS
    assert out.full_warnings == (full,)
    assert out.warnings == (
        (
            f'{RATCHETED_PREFIX}{UPSTREAM}: Invalid value: "Registry.Example.com": a lowercase RFC 1123 subdomain must '
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric…"
        ),
    )
    assert out.response["warnings"] == list(out.warnings)
    assert out.entries == (("OSC-CRI-004", "ratcheted", full.removeprefix(RATCHETED_PREFIX)),)


def test_a_value_too_long_for_any_warning_becomes_a_placeholder_and_the_detail_stays() -> None:
    upstream = "a" * 300
    warn = Settings(rules={"OSC-CRI-004": Mode.WARN})
    out = outcome(review_bytes(osc_with_upstream(upstream)), warn)
    assert out.allowed
    detail = "must be no more than 253 characters"
    assert out.warnings == (f'{UPSTREAM}: Invalid value: "<value of 300 characters>": {detail}',)
    assert out.full_warnings == (f'{UPSTREAM}: Invalid value: "{upstream}": {detail}',)


def test_short_warnings_reach_the_response_unchanged() -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.33.2", "1.33.2"))
    out = outcome(review_bytes(raw, raw))
    assert (
        out.warnings
        == out.full_warnings
        == ('unchanged, not enforced: spec.kubernetes.versions[1].version: Duplicate value: "1.33.2"',)
    )


def test_full_warnings_hold_every_warning_the_response_caps() -> None:
    deprecated = [
        {"version": f"1.{m}.0", "classification": "deprecated", "expirationDate": "2026-12-01T00:00:00Z"}
        for m in range(10, 39, 2)
    ]
    raw = cloud_profile_dict(kubernetes=versions("1.40.0", *deprecated), machineImages=[image("gl", "1.0.0")])
    out = outcome(review_bytes(raw))
    assert len(out.full_warnings) > MAX_WARNINGS and len(set(out.full_warnings)) == len(out.full_warnings)
    assert len(out.warnings) == MAX_WARNINGS
    assert out.warnings[:-1] == out.full_warnings[: MAX_WARNINGS - 1]
    assert out.warnings[-1] == f"{len(out.full_warnings) - (MAX_WARNINGS - 1)} more warnings not shown"


def test_control_characters_are_removed_in_both_forms() -> None:
    warn = Settings(rules={"OSC-CRI-004": Mode.WARN})
    out = outcome(review_bytes(osc_with_upstream("Docker.io\u0085\u2028x")), warn)
    assert out.warnings and all(w.isprintable() for w in (*out.warnings, *out.full_warnings))


# ------------------------------------------------------------------------------------------------ one warning


@pytest.mark.parametrize(
    "text",
    [
        "",
        'spec.kubernetes.version: "1.33" resolves to "1.33.2"',
        "x" * MAX_WARNING_CHARS,
        'spec.x: Invalid value: "' + "v" * (MAX_WARNING_CHARS - 28) + '": d',
    ],
    ids=["empty", "short", "exactly-256", "exactly-256-with-value"],
)
def test_warnings_that_fit_are_returned_unchanged(text: str) -> None:
    assert len(text) <= MAX_WARNING_CHARS
    assert compose_warning(text) is text


def test_a_cut_never_lands_inside_a_double_quoted_value_with_escapes() -> None:
    value = render_value('say "hi" \\ to garden-team/prod, please')
    prefix = "spec.a: " + "word " * 45
    text = f"{prefix}{value}: must be short"
    assert len(prefix) < MAX_WARNING_CHARS < len(prefix) + len(value)
    assert compose_warning(text) == prefix.rstrip() + "…"


@pytest.mark.parametrize("at", range(0, 40, 3))
def test_apostrophes_in_words_are_no_quotes(at: int) -> None:
    """The cut falls at each position around 'garden-team/prod': never inside it; Shoot's and owners' are words."""
    head = "spec.b: the Shoot's owners' project " + "x" * (MAX_WARNING_CHARS - 60 + at)
    text = f"{head} 'garden-team/prod' is not the owners' choice, don't use it"
    out = compose_warning(text)
    assert len(out) <= MAX_WARNING_CHARS and out.endswith("…")
    body = out.removesuffix("…")
    assert text.startswith(body) and text[len(body)] == " "
    assert ("'garden-team/prod'" in body) or ("'garden" not in body)


def test_an_apostrophe_in_a_word_opens_no_value() -> None:
    """Were `'s … owners'` taken for one quoted value, it would be elided instead of the text being cut."""
    assert compose_warning("spec.b: Shoot's " + "x" * 300 + " owners' end") == "spec.b: Shoot's…"


def test_long_single_quoted_values_are_elided_whole() -> None:
    regex = "'" + "[a-z0-9]" * 20 + "'"
    text = f'spec.c: Invalid value: "X": must match {regex} (see {"the docs " * 12}for details)'
    assert len(text) > MAX_WARNING_CHARS
    assert compose_warning(text) == text.replace(regex, elided(regex))


def test_values_are_elided_longest_first_and_only_as_needed() -> None:
    small, medium, large = (render_value(c * n) for c, n in (("s", 70), ("m", 120), ("l", 200)))
    text = f"spec.d: {small} {large} {medium}: must be shorter"
    assert compose_warning(text) == f"spec.d: {small} {elided(large)} {medium}: must be shorter"


def test_small_values_are_kept_whole_and_the_text_is_cut() -> None:
    text = 'spec.e: Invalid value: "1.33.2": ' + "because " * 40
    out = compose_warning(text.strip())
    assert out.startswith('spec.e: Invalid value: "1.33.2": because') and out.endswith("because…")
    assert len(out) <= MAX_WARNING_CHARS


def test_one_long_word_is_cut_at_the_limit() -> None:
    assert compose_warning("y" * 1000) == "y" * (MAX_WARNING_CHARS - 1) + "…"


@pytest.mark.parametrize(
    "text",
    ['"' + '\\"' * 50_000, "x " + "'a " * 50_000, "'a\"b " * 25_000, "'" + "a'b" * 50_000 + " '", "it's " * 50_000],
    ids=["unclosed-double", "unclosed-singles", "mixed", "apostrophes-inside", "apostrophes-in-words"],
)
def test_unclosed_quotes_are_plain_characters_and_cost_linear_time(text: str) -> None:
    """A text built from user values (details that quote without escaping) cannot make composing quadratic."""
    started = time.perf_counter()
    out = compose_warning(text.strip())
    assert time.perf_counter() - started < 1.0  # quadratic scanning takes minutes here
    assert 0 < len(out) <= MAX_WARNING_CHARS


def test_clean_text_is_returned_as_is() -> None:
    text = "spec.f: nothing to clean, not even 'ü' or \"é\""
    assert clean_warning(text) is text
    assert clean_warning(" a\tb\x00c\u200b d ") == "a b c d"
    assert clean_warnings(["a", "a\n", "", " ", "b"]) == ["a", "b"]


# ------------------------------------------------------------------------------------------------ all warnings


def test_twenty_warnings_are_kept_and_more_are_counted() -> None:
    twenty = [f"w{i}" for i in range(MAX_WARNINGS)]
    assert limit_warnings(twenty) == twenty
    out = limit_warnings([f"w{i}" for i in range(25)])
    assert out == [*twenty[: MAX_WARNINGS - 1], "6 more warnings not shown"]


def test_total_characters_are_bounded_by_dropping_whole_warnings_from_the_end() -> None:
    long = [f"{i:02}" + "z" * 300 for i in range(30)]
    out = limit_warnings(long)
    assert sum(map(len, out)) <= MAX_WARNINGS_TOTAL_CHARS
    assert out[:-1] == [compose_warning(t) for t in long[: len(out) - 1]]
    assert all(len(w) == MAX_WARNING_CHARS for w in out[:-1])
    assert out[-1] == f"{30 - (len(out) - 1)} more warnings not shown" and len(out) == 16


def test_one_warning_over_the_total_is_counted_in_the_singular() -> None:
    texts = [f"{i:02}" + "q" * (MAX_WARNING_CHARS - 2) for i in range(15)] + ["r" * 200, "s" * 100]
    out = limit_warnings(texts)
    assert out == [*texts[:16], "1 more warning not shown"]
    assert sum(map(len, out)) <= MAX_WARNINGS_TOTAL_CHARS


def test_warnings_are_deduplicated_on_the_composed_text() -> None:
    base = "spec.g: " + "same words " * 30
    full = clean_warnings([base + "ending one", base + "ending two"])
    assert len(full) == 2
    assert limit_warnings(full) == [compose_warning(full[0])]


# ------------------------------------------------------------------------------------------------ property

_WORD_CHARS = string.ascii_letters + string.digits + ".:-/[](){}=<>,;!?*+#@$%&\\_"
_WORDS = st.one_of(
    st.text(alphabet=_WORD_CHARS, min_size=1, max_size=12),
    st.sampled_from(["Shoot's", "owners'", "don't", "it's", "garden-team/prod", "1.33.2", "2026-12-01"]),
)
_CONTENT = st.one_of(st.text(max_size=20), st.text(min_size=50, max_size=400))
_DOUBLE = _CONTENT.map(render_value)
_SINGLE = st.one_of(
    st.text(alphabet=st.characters(exclude_characters="'"), max_size=20),
    st.text(alphabet=st.characters(exclude_characters="'"), min_size=50, max_size=400),
).map(lambda s: f"'{s}'")
_PIECES = st.lists(
    st.one_of(_WORDS.map(lambda w: (w, False)), _DOUBLE.map(lambda v: (v, True)), _SINGLE.map(lambda v: (v, True))),
    min_size=1,
    max_size=60,
)


@given(_PIECES)
def test_composed_warnings_fit_and_hold_whole_values_in_order(pieces: list[tuple[str, bool]]) -> None:
    """Every output is the input's beginning, piece by piece, each value whole or as its placeholder."""
    text = " ".join(p for p, _ in pieces)
    out = compose_warning(text)
    assert len(out) <= MAX_WARNING_CHARS
    if len(text) <= MAX_WARNING_CHARS:
        assert out == text
        return
    cut = out.endswith("…")
    body = out.removesuffix("…") if cut else out
    position = 0
    consumed = 0
    for i, (piece, is_value) in enumerate(pieces):
        sep = " " if i else ""
        forms = (piece, elided(piece)) if is_value else (piece,)
        form = next((f for f in forms if body.startswith(sep + f, position)), None)
        if form is None:
            break
        position += len(sep) + len(form)
        consumed += 1
    assert position == len(body), (body[position:], text)
    assert consumed >= 1
    assert cut or consumed == len(pieces)


@given(st.lists(st.text(max_size=300), max_size=40))
def test_any_warnings_keep_the_count_and_total_rules(texts: list[str]) -> None:
    full = clean_warnings(texts)
    out = limit_warnings(full)
    assert len(out) <= MAX_WARNINGS and sum(map(len, out)) <= MAX_WARNINGS_TOTAL_CHARS
    assert all(0 < len(w) <= MAX_WARNING_CHARS and w.isprintable() for w in out)
    assert len(set(out)) == len(out)
    if len(out) < len(set(map(compose_warning, full))):
        assert out[-1].endswith("not shown")


def test_placeholder_is_documented_shape() -> None:
    assert elided(json.dumps("x" * 4096)) == '"<value of 4096 characters>"'
