"""`python -m tests.server.serve_with_limits '{"max_connections": 3, ...}' serve ARGS…`: serve with test-sized bounds.

The bounds of `webhook.server.limits` are ServeOptions fields, not command-line options; the end-to-end tests
shrink them (a 0.5 s read timeout instead of 10 s) so that a stalled client is observed in a second.
"""

from __future__ import annotations

import dataclasses
import json
import sys

from webhook.server import serve


def main() -> None:
    limits = json.loads(sys.argv[1])
    original = serve.ServeOptions

    def with_limits(**kwargs: object) -> serve.ServeOptions:
        return dataclasses.replace(original(**kwargs), **limits)  # type: ignore[arg-type]

    serve.ServeOptions = with_limits  # type: ignore[assignment, misc]
    import webhook.server as server_package

    server_package.ServeOptions = with_limits  # type: ignore[attr-defined]
    from webhook.cli import main as cli_main

    sys.exit(cli_main(sys.argv[2:]))


if __name__ == "__main__":
    main()
