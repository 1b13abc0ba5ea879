"""`gardener-webhook serve`: one server process, or `--workers N` of them under a supervisor.

`run_server` is what the CLI calls. It installs JSON logging, checks the options and prepares the certificates
once (`serve.prepare`), and then either serves in this process (`serve.serve_forever`) or, with `workers > 1`,
supervises that many server processes (`workers.supervise`), which are handed the prepared certificate directory.
The decision lives here so that the dependency points one way: this module uses `workers` and `serve`, `workers`
uses `serve`, and `serve` knows neither.
Exit status: 0 after a signal, 2 for unusable options, certificates or addresses (message on the error stream).
The first log line, "starting", names the version and the Python it runs on, so a log shows what ran before anything
can go wrong.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import platform
import sys
from dataclasses import replace
from typing import TextIO

from webhook import __version__
from webhook.cluster.view import ClusterView
from webhook.server.logs import json_logging
from webhook.server.serve import EXIT_OK, EXIT_USAGE, ServeError, ServeOptions, prepare, serve_forever
from webhook.server.workers import ViewFactory, supervise
from webhook.settings import Settings

logger = logging.getLogger(__name__)


def run_server(
    options: ServeOptions,
    *,
    settings: Settings,
    view: ClusterView,
    out: TextIO,
    err: TextIO | None = None,
    view_factory: ViewFactory | None = None,
) -> int:
    """Serve until SIGTERM/SIGINT; returns the exit status (0 stopped by a signal, 2 unusable setup).

    out: where the CA bundle path and the listening URLs are printed; err: where setup errors go (stderr).
    view_factory: builds the cluster view of each worker process when `options.workers > 1` (it is pickled
    into the workers; default: a copy of `view`). Logs go to stderr as JSON lines while the server runs.
    """
    errors = err or sys.stderr
    with json_logging():
        started = {"version": __version__, "python": platform.python_version(), "pid": os.getpid()}
        logger.info("starting", extra={**started, "workers": options.workers})
        try:
            cert, key = prepare(options, out)
            if options.workers > 1:
                factory = view_factory or functools.partial(_same, view)
                worker_options = replace(options, cert_dir=cert.parent)
                return supervise(worker_options, settings=settings, view_factory=factory, out=out)
            asyncio.run(serve_forever(options, settings=settings, view=view, cert=cert, key=key, out=out))
        except ServeError as exc:
            errors.write(f"gardener-webhook serve: {exc}\n")
            return EXIT_USAGE
    return EXIT_OK


def _same(view: ClusterView) -> ClusterView:
    """The view itself: a picklable stand-in for `lambda: view` (each worker unpickles its own copy)."""
    return view
