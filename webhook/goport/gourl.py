"""Go's `net/url.Parse`, as far as rules that quote its errors need it: the scheme, the host, or the error text.

Gardener validates registry URLs with `url.Parse` and shows `err.Error()` in its field errors, so these functions
return Go's exact error text (`parse "://registry": missing protocol scheme`) instead of raising: the text is
the message. Only what decides acceptance is ported (no path, query or userinfo values are returned).
Pure functions; none of them raises.
Source: golang/go src/net/url/url.go (Parse, parse, getScheme, parseAuthority, parseHost, unescape,
shouldEscape, validUserinfo), src/strconv/quote.go (Quote).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

_HOST_PUNCTUATION: Final = frozenset("!$&'()*+,;=:[]<>\"-_.~")
_GO_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def url_parts(raw: str) -> tuple[str, str] | str:
    """(scheme lower-cased, host) as Go's url.Parse returns them, or its error text (`parse "…": …`).

    raw: the URL as written. The host keeps its port and IPv6 brackets (`[::1]:5000`); it is "" for a URL
    without authority (`registry.example.com`, an opaque `mailto:x`, `*`), and the scheme is "" without one.
    Covers the errors url.Parse reports: control characters, a missing scheme before ':', a colon in the first
    segment of a relative URL, a bad port or character in the host, bad userinfo, bad percent escapes.
    Source: net/url Parse (the fragment after `#` is only unescaped).
    """
    return _remembered_url_parts(raw) if len(raw) <= _REMEMBERED_CHARS else _url_parts(raw)


# A pure function of one string, asked for every registry server and host of every OperatingSystemConfig, mostly
# for the same few URLs: remembered (bounded in entries and in length), as versions.parse_version is.
_REMEMBERED_CHARS: Final = 2048


@lru_cache(maxsize=1024)
def _remembered_url_parts(raw: str) -> tuple[str, str] | str:
    return _url_parts(raw)


def _url_parts(raw: str) -> tuple[str, str] | str:
    url, _, fragment = raw.partition("#")
    result = _parse(url)
    if isinstance(result, str):
        return f"parse {go_quote(url)}: {result}"
    if fragment and (error := unescape_error(fragment, host=False)):
        return f"parse {go_quote(raw)}: {error}"
    return result


def _parse(url: str) -> tuple[str, str] | str:
    """Go's unexported parse (not via a request) of a URL without fragment: (scheme, host), or the bare error."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return "net/url: invalid control character in URL"
    if url == "*":
        return "", ""
    scheme, rest = "", url
    for i, c in enumerate(url):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                return "missing protocol scheme"
            scheme, rest = url[:i].lower(), url[i + 1 :]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest = rest.partition("?")[0]
    if not rest.startswith("/"):
        if scheme:
            return scheme, ""  # opaque: no host
        if ":" in rest.partition("/")[0]:
            return "first path segment in URL cannot contain colon"
    host = ""
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        userinfo, at, host = authority.rpartition("@")
        error = host_error(host)
        if error:
            return error
        if at and any(not (c.isascii() and c.isalnum()) and c not in "-._:~!$&'()*+,;=%@" for c in userinfo):
            return "net/url: invalid userinfo"
        error = unescape_error(userinfo, host=False)
        if error:
            return error
    error = unescape_error(rest, host=False)
    return error if error else (scheme, host)


def host_error(host: str) -> str | None:
    """Go's parseHost: a valid optional port after the host or after `]`, then the host's characters.

    host: the authority after any `userinfo@`, as written (`[::1]:5000`, `a.example.com:443`). Returns the
    bare error text (`invalid port ":x" after host`, `missing ']' in host`, an unescape error) or None.
    Source: net/url parseHost, validOptionalPort.
    """
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            return "missing ']' in host"
        colon_port = host[end + 1 :]
    else:
        colon = host.rfind(":")
        colon_port = host[colon:] if colon != -1 else ""
    if colon_port and not (colon_port[0] == ":" and all(c in "0123456789" for c in colon_port[1:])):
        return f"invalid port {go_quote(colon_port)} after host"
    return unescape_error(host, host=True)


def unescape_error(text: str, *, host: bool) -> str | None:
    """Go's unescape errors: a `%` not followed by two hex digits; in a host, %-escaped ASCII and odd characters.

    host: True for a host (Go's encodeHost mode), where `%XX` below 0x80 other than `%25` and ASCII characters
    other than letters, digits and the sub-delimiters are refused. Returns the bare error text or None.
    Source: net/url unescape, shouldEscape.
    """
    i = 0
    while i < len(text):
        c = text[i]
        if c == "%":
            escape = text[i : i + 3]
            if len(escape) < 3 or not all(h in "0123456789abcdefABCDEF" for h in escape[1:]):
                return f"invalid URL escape {go_quote(escape)}"
            if host and int(escape[1], 16) < 8 and escape != "%25":
                return f"invalid URL escape {go_quote(escape)}"
            i += 3
            continue
        if host and c.isascii() and not c.isalnum() and c not in _HOST_PUNCTUATION:
            return f"invalid character {go_quote(c)} in host name"
        i += 1
    return None


def go_quote(text: str) -> str:
    """Go's strconv.Quote for the texts url.Parse quotes: double quotes, backslash escapes, `\\xNN` for controls.

    Characters from U+0080 on are kept as they are; Go would also escape the non-printable ones among them
    (`\\u00a0`), which url.Parse quotes only inside otherwise faulty URLs. Source: strconv Quote.
    """
    out = []
    for c in text:
        if c in _GO_ESCAPES:
            out.append(_GO_ESCAPES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'
