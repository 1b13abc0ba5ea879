"""Go's net/url.Parse port (webhook/goport/gourl.py): what Go accepts, with scheme and host, and what it refuses, verbatim."""

from __future__ import annotations

import pytest

from webhook.goport.gourl import go_quote, host_error, unescape_error, url_parts


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("https://registry-1.docker.io", ("https", "registry-1.docker.io"), id="https"),
        pytest.param("http://10.4.0.12:5000", ("http", "10.4.0.12:5000"), id="ip-with-port"),
        pytest.param("ftp://registry.example.com", ("ftp", "registry.example.com"), id="any-scheme"),
        pytest.param("HTTPS://Mirror.Example.com:443/v2/", ("https", "Mirror.Example.com:443"), id="scheme-lowered"),
        pytest.param("http://[::1]:5000", ("http", "[::1]:5000"), id="ipv6-brackets-and-port"),
        pytest.param("http://[fe80::1%25en0]:8080", ("http", "[fe80::1%25en0]:8080"), id="ipv6-zone"),
        pytest.param("https://host:", ("https", "host:"), id="empty-port"),
        pytest.param("https://a%C3%A9", ("https", "a%C3%A9"), id="host-non-ascii-escape"),
        pytest.param("http://bücher.example", ("http", "bücher.example"), id="host-non-ascii"),
        pytest.param("http://h_o.st", ("http", "h_o.st"), id="host-underscore"),
        pytest.param("http://user@host", ("http", "host"), id="userinfo"),
        pytest.param("http://a@b@c", ("http", "c"), id="userinfo-with-at"),
        pytest.param("https://h:5000/p?x#y", ("https", "h:5000"), id="path-query-fragment"),
        pytest.param("http://host?q=%zz", ("http", "host"), id="query-not-unescaped"),
        pytest.param("//host/path", ("", "host"), id="scheme-relative"),
        pytest.param("registry.example.com", ("", ""), id="no-scheme-no-host"),
        pytest.param("1a", ("", ""), id="relative-path"),
        pytest.param("///path", ("", ""), id="triple-slash"),
        pytest.param("mailto:someone@example.com", ("mailto", ""), id="opaque"),
        pytest.param("*", ("", ""), id="asterisk"),
        pytest.param("", ("", ""), id="empty"),
    ],
)
def test_accepted(raw: str, expected: tuple[str, str]) -> None:
    assert url_parts(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("://registry", 'parse "://registry": missing protocol scheme', id="missing-scheme"),
        pytest.param(
            "1http://x", 'parse "1http://x": first path segment in URL cannot contain colon', id="scheme-digit-first"
        ),
        pytest.param(
            "+x:y", 'parse "+x:y": first path segment in URL cannot contain colon', id="colon-in-first-segment"
        ),
        pytest.param(
            "http://<service-ip>:<port>]",
            'parse "http://<service-ip>:<port>]": invalid port ":<port>]" after host',
            id="seed-placeholder",
        ),
        pytest.param("https://host:port", 'parse "https://host:port": invalid port ":port" after host', id="port-name"),
        pytest.param("https://h:80x", 'parse "https://h:80x": invalid port ":80x" after host', id="port-not-digits"),
        pytest.param("http://[::1", "parse \"http://[::1\": missing ']' in host", id="ipv6-unclosed"),
        pytest.param("http://[::1]x", 'parse "http://[::1]x": invalid port "x" after host', id="ipv6-junk-after"),
        pytest.param("https://a b", 'parse "https://a b": invalid character " " in host name', id="host-space"),
        pytest.param("http://h{o}st", 'parse "http://h{o}st": invalid character "{" in host name', id="host-brace"),
        pytest.param("https://a%zz", 'parse "https://a%zz": invalid URL escape "%zz"', id="host-bad-escape"),
        pytest.param("https://a%41", 'parse "https://a%41": invalid URL escape "%41"', id="host-escaped-ascii"),
        pytest.param("http://ho%st", 'parse "http://ho%st": invalid URL escape "%st"', id="host-percent"),
        pytest.param(
            "http://user:pa ss@host", 'parse "http://user:pa ss@host": net/url: invalid userinfo', id="userinfo"
        ),
        pytest.param("http://host/%zz", 'parse "http://host/%zz": invalid URL escape "%zz"', id="path-bad-escape"),
        pytest.param(
            "http://host/a#frag%zz", 'parse "http://host/a#frag%zz": invalid URL escape "%zz"', id="fragment-bad-escape"
        ),
        pytest.param(
            "http://ho\x01st", 'parse "http://ho\\x01st": net/url: invalid control character in URL', id="control"
        ),
        pytest.param("a\tb", 'parse "a\\tb": net/url: invalid control character in URL', id="tab"),
    ],
)
def test_refused(raw: str, expected: str) -> None:
    assert url_parts(raw) == expected


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        pytest.param("host:80", None, id="port"),
        pytest.param("[::1]:5000", None, id="ipv6-port"),
        pytest.param("a%25b", None, id="escaped-percent"),
        pytest.param("", None, id="empty"),
        pytest.param("a:b", 'invalid port ":b" after host', id="bad-port"),
        pytest.param("[::1", "missing ']' in host", id="ipv6-unclosed"),
        pytest.param("a b", 'invalid character " " in host name', id="space"),
        pytest.param("a%41b", 'invalid URL escape "%41"', id="escaped-ascii"),
    ],
)
def test_host_error(host: str, expected: str | None) -> None:
    assert host_error(host) == expected


@pytest.mark.parametrize(
    ("text", "host", "expected"),
    [
        pytest.param("a%41b c", False, None, id="path-escaped-ascii-and-space"),
        pytest.param("a%4", False, 'invalid URL escape "%4"', id="short-escape"),
        pytest.param("a%g1", False, 'invalid URL escape "%g1"', id="non-hex"),
        pytest.param("a%41", True, 'invalid URL escape "%41"', id="host-escaped-ascii"),
        pytest.param("a%C3%A9", True, None, id="host-escaped-non-ascii"),
        pytest.param("a/b", True, 'invalid character "/" in host name', id="host-slash"),
    ],
)
def test_unescape_error(text: str, host: bool, expected: str | None) -> None:
    assert unescape_error(text, host=host) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('say "hi"\n', '"say \\"hi\\"\\n"', id="quote-and-newline"),
        pytest.param("a\\b", '"a\\\\b"', id="backslash"),
        pytest.param("\x00\x7f\x1b", '"\\x00\\x7f\\x1b"', id="controls"),
        pytest.param("é", '"é"', id="non-ascii-kept"),
    ],
)
def test_go_quote(text: str, expected: str) -> None:
    assert go_quote(text) == expected
