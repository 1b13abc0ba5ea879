"""Go's regexp anchors in Python's `re`: a pattern ported from Go must not accept a trailing newline.

In Go (RE2 syntax, no `m` flag) `$` matches at the end of the text only. Python's `$` also matches just before a
final "\\n", so `re.match("^[a-z]+$", "abc\\n")` succeeds where Go's `regexp.MatchString` fails: a name, label value,
quantity or version written with a trailing newline passed checks that gardener-apiserver refuses (found by the
differential against it). `compile_go` compiles such a pattern with its final `$` as `\\Z`.
"""

from __future__ import annotations

import re


def compile_go(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compile `pattern` (written for Go's regexp) so that a final unescaped `$` matches only at the end of the text.

    Only the last `$` is touched: Go patterns ported here end in `$` or not at all. Raises re.error as re.compile.
    """
    if pattern.endswith("$") and not _escaped(pattern, len(pattern) - 1):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, flags)


def _escaped(pattern: str, index: int) -> bool:
    """Whether the character at `index` is escaped (an odd number of backslashes before it)."""
    count = 0
    while index - count - 1 >= 0 and pattern[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1
