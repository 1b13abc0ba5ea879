"""The documentation site opened in headless Chromium: a small Chrome DevTools Protocol client and the site's check.

The client speaks CDP over one websocket (aiohttp's client) to a Chromium it starts with `--remote-debugging-port=0`
(the browser binds 127.0.0.1 and writes the port it chose to `<user-data-dir>/DevToolsActivePort`). Each tab is a
flattened session; the tab auto-attaches its workers (Material's search runs in one), so their exceptions, console
errors and failed loads are the tab's too. No host but 127.0.0.1 resolves in that browser, names and addresses alike
(`--host-resolver-rules`): whatever the site tries to load from elsewhere (a CDN, a web font, GitHub's API) fails
the same with or without a network, as a console error.

The check (`check_site`, the CLI's `check`, tests/test_site.py) serves a built site over HTTP on 127.0.0.1 (Material's
search worker does not run from file://), walks the theme's navigation (`.md-nav` links) breadth-first from the home
page, and compares the pages reached with the pages the build produced (every `index.html`: with `use_directory_urls`
a page is `<path>/index.html`; 404.html is not a page); every page reached must load without an exception, a console
error or a failed load; and the search must find a rule id (the first `### ` heading on reference/rules/ that holds
one, else CP-K8S-003) with a result that links to a page containing it.

Every wait is for an event (a CDP reply, `Page.loadEventFired`, the network going quiet, a DOM mutation) with a
generous deadline, DEADLINE_SECONDS, that only a hang reaches.

    python -m tests.site_browser check <site-dir>
    python -m tests.site_browser screenshot <site-dir> <page-path> <out.png> [--full-page]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import http.server
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urldefrag, urljoin, urlsplit

import aiohttp

DEADLINE_SECONDS: Final = 60.0
CHROMIUM_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
RULE_ID: Final = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+-\d{3}\b")
FALLBACK_RULE_ID: Final = "CP-K8S-003"
RULES_PAGE: Final = "/reference/rules/"
# Everything but the local server fails to resolve: the site must not need the network, and a request that would
# reach it here fails the same way on a machine that has one.
OFFLINE: Final = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
    f"--host-resolver-rules={OFFLINE}",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--mute-audio",
)
VIEWPORT: Final = (1280, 900)  # CSS px: wide enough for Material's navigation, table of contents and content


Handler = Callable[[str, str, dict[str, Any]], None]


class CdpError(RuntimeError):
    """A CDP command's error reply, or the connection to the browser gone."""


class PageError(RuntimeError):
    """A navigation that failed (no document) or an expression that threw in the page."""


@dataclass(frozen=True)
class ConsoleError:
    """One error a page produced: `kind` is exception, console (console.error/assert) or log (Chromium's own log:
    failed loads among them)."""

    page: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.message}"


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable on PATH, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


class Connection:
    """One CDP websocket: commands matched to replies by id, events handed to the handler of their session
    ("" is the browser's own)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self.handlers: dict[str, Handler] = {}  # sessionId -> handler(sessionId, method, params)
        self._gone: str | None = None
        self._reader = asyncio.create_task(self._read(), name="cdp-reader")

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str = "", timeout: float = DEADLINE_SECONDS
    ) -> dict[str, Any]:
        """The command's result object. Raises CdpError on an error reply or a closed connection, TimeoutError
        when no reply comes within `timeout` seconds."""
        if self._gone is not None:
            raise CdpError(f"{method}: {self._gone}")
        number = next(self._ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[number] = (method, reply)
        try:
            await self._ws.send_str(json.dumps(message))
            async with asyncio.timeout(timeout):
                return await reply
        except TimeoutError:
            raise TimeoutError(f"{method}: no reply from the browser in {timeout:.0f} s") from None
        finally:
            self._pending.pop(number, None)

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if frame.type is not aiohttp.WSMsgType.TEXT:
                    break
                message = json.loads(frame.data)
                if "id" in message:
                    method, reply = self._pending.get(message["id"], ("", None))
                    if reply is None or reply.done():
                        continue
                    if "error" in message:
                        reply.set_exception(CdpError(f"{method}: {message['error'].get('message')}"))
                    else:
                        reply.set_result(message.get("result", {}))
                    continue
                handler = self.handlers.get(message.get("sessionId", ""))
                if handler is not None:
                    handler(message.get("sessionId", ""), message["method"], message.get("params", {}))
            self._gone = "the browser closed the DevTools connection"
        except Exception as exc:  # noqa: BLE001 - a handler's bug or a broken socket: every waiter hears of it
            self._gone = f"the DevTools connection failed: {exc!r}"
        for method, reply in self._pending.values():
            if not reply.done():
                reply.set_exception(CdpError(f"{method}: {self._gone}"))

    async def close(self) -> None:
        await self._ws.close()
        await self._reader


class Tab:
    """A page target and the workers it starts. `errors` collects what they report, attributed to `page` (the
    path last navigated to); `take_errors()` hands them over."""

    def __init__(self, connection: Connection, session: str) -> None:
        self._cdp = connection
        self.session = session
        self.page = "about:blank"
        self.errors: list[ConsoleError] = []
        self._loads = 0
        # requestId -> (session, loaderId, URL). A worker's script is requested by the page and loaded in the
        # worker's session under the same id, so the id alone is the key.
        self._inflight: dict[str, tuple[str, str, str]] = {}
        # The loaders (documents) navigated away from: the favicon a document asks for as the next one loads never
        # finishes, so their requests are not waited for.
        self._loader: str | None = None
        self._retired: set[str] = set()
        self._changed = asyncio.Event()  # set on every load and network event; waiters re-check their condition
        self._children: set[asyncio.Task[None]] = set()
        connection.handlers[session] = self._on_event

    async def start(self) -> None:
        """Enable the domains whose events the check reads, and attach to workers before they run."""
        for method, params in (
            ("Page.enable", {}),
            ("Runtime.enable", {}),
            ("Log.enable", {}),
            ("Network.enable", {}),
            # The window's size is not the page's (headless keeps room for browser chrome): set the viewport itself.
            (
                "Emulation.setDeviceMetricsOverride",
                {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False},
            ),
            ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}),
        ):
            await self._cdp.send(method, params, session=self.session)

    def _note(self, kind: str, message: str) -> None:
        self.errors.append(ConsoleError(self.page, kind, message))

    def _on_event(self, session: str, method: str, params: dict[str, Any]) -> None:
        if method == "Page.loadEventFired" and session == self.session:
            self._loads += 1
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "")
            self._note("exception", f"{text} ({details.get('url', '')}:{details.get('lineNumber', 0) + 1})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [a.get("value", a.get("description", a.get("unserializableValue", ""))) for a in params["args"]]
            self._note("console", " ".join(str(a) for a in args) or params["type"])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self._note("log", f"{entry.get('text', '')} ({entry.get('url', '')})")
        elif method == "Network.requestWillBeSent" and params.get("loaderId") not in self._retired:
            self._inflight[params["requestId"]] = (session, params.get("loaderId", ""), params["request"]["url"])
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):  # a failure is in the log too
            self._inflight.pop(params["requestId"], None)
        elif method == "Target.attachedToTarget":
            task = asyncio.create_task(self._start_child(params["sessionId"], params["targetInfo"]["type"]))
            self._children.add(task)
            task.add_done_callback(self._children.discard)
        elif method == "Target.detachedFromTarget":
            gone = params["sessionId"]
            self._cdp.handlers.pop(gone, None)
            for key in [k for k, (s, _, _) in self._inflight.items() if s == gone]:
                del self._inflight[key]
        self._changed.set()

    async def _start_child(self, session: str, kind: str) -> None:
        """A worker (or frame) that waits for the debugger: its domains enabled, then let run."""
        self._cdp.handlers[session] = self._on_event
        with contextlib.suppress(CdpError):  # a target gone meanwhile, or a domain it does not have (Log)
            if kind in ("worker", "shared_worker", "service_worker", "iframe"):
                for method in ("Runtime.enable", "Log.enable", "Network.enable"):
                    with contextlib.suppress(CdpError):
                        await self._cdp.send(method, session=session)
            await self._cdp.send("Runtime.runIfWaitingForDebugger", session=session)

    async def _until(self, done: Callable[[], bool], what: Callable[[], str], timeout: float) -> None:
        """Return once `done()` is true, re-checked after every event. Raises TimeoutError after `timeout` s,
        saying `what()`."""
        try:
            async with asyncio.timeout(timeout):
                while not done():
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise TimeoutError(f"{self.page}: {what()} within {timeout:.0f} s") from None

    async def navigate(self, url: str, page: str | None = None, *, timeout: float = DEADLINE_SECONDS) -> None:
        """Load `url` and wait for its load event, then for the network to go quiet. Errors from then on are
        attributed to `page` (default: the URL). Raises PageError when no document loads (e.g. connection
        refused), TimeoutError after `timeout` s."""
        self.page = page or url
        loads = self._loads
        result = await self._cdp.send("Page.navigate", {"url": url}, session=self.session, timeout=timeout)
        if result.get("errorText"):
            raise PageError(f"{url}: {result['errorText']}")
        if result.get("loaderId"):  # absent for a same-document (fragment) navigation, which fires no load event
            if self._loader is not None:
                self._retired.add(self._loader)
            self._loader = result["loaderId"]
            self._inflight = {k: v for k, v in self._inflight.items() if v[1] not in self._retired}
            await self._until(lambda: self._loads > loads, lambda: "no load event", timeout)
        await self.settle(timeout=timeout)

    async def settle(self, *, timeout: float = DEADLINE_SECONDS) -> None:
        """Wait until no request of the page or its workers is in flight, after the page's pending tasks ran
        (what a load handler starts counts). Raises TimeoutError after `timeout` s, naming the requests."""
        await self.evaluate("new Promise(resolve => setTimeout(resolve, 0))", await_promise=True, timeout=timeout)
        await self._until(lambda: not self._inflight, self._in_flight, timeout)

    def _in_flight(self) -> str:
        return f"requests still in flight: {', '.join(sorted(v[2] for v in self._inflight.values()))}"

    async def evaluate(self, expression: str, *, await_promise: bool = False, timeout: float = DEADLINE_SECONDS) -> Any:
        """The JSON value of `expression` in the page (awaited when `await_promise`). Raises PageError when it
        throws or rejects."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": await_promise}
        result = await self._cdp.send("Runtime.evaluate", params, session=self.session, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise PageError(details.get("exception", {}).get("description") or details.get("text", "threw"))
        return result["result"].get("value")

    async def screenshot(self, out: Path, *, full_page: bool = False) -> tuple[int, int]:
        """Write a PNG of the viewport (VIEWPORT, CSS px), or of the whole page, to `out`; its (width, height)."""
        params: dict[str, Any] = {"format": "png"}
        width, height = VIEWPORT
        if full_page:
            size = (await self._cdp.send("Page.getLayoutMetrics", session=self.session))["cssContentSize"]
            width, height = int(size["width"]), int(size["height"])
            clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
            params |= {"captureBeyondViewport": True, "clip": clip}
        data = await self._cdp.send("Page.captureScreenshot", params, session=self.session)
        out.write_bytes(base64.b64decode(data["data"]))
        return width, height

    def take_errors(self) -> list[ConsoleError]:
        taken, self.errors = self.errors, []
        return taken


class Browser:
    """A running headless Chromium, through its browser-wide CDP session."""

    def __init__(self, connection: Connection) -> None:
        self.cdp = connection

    async def new_tab(self) -> Tab:
        """A new blank page, attached as a flattened session with its events enabled."""
        target = await self.cdp.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        tab = Tab(self.cdp, attached["sessionId"])
        await tab.start()
        return tab


def _exited(pid: int) -> bool:
    """Whether the child `pid` has exited, without reaping it: while it is a zombie its process group id stays ours."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


async def _devtools_port(profile: Path, process: subprocess.Popen[bytes], log: Path, timeout: float) -> tuple[int, str]:
    """(port, browser websocket path) from `<profile>/DevToolsActivePort`, which Chromium writes once it listens.
    Polled (Chromium gives no other signal) until `timeout` s. Raises RuntimeError when Chromium exits first,
    TimeoutError at the deadline; both quote Chromium's output."""
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = active.read_text().splitlines() if active.is_file() else []
        if len(lines) >= 2 and lines[0].isdigit():  # both lines written: the file is not read half-way
            return int(lines[0]), lines[1]
        if _exited(process.pid):
            raise RuntimeError(f"chromium exited before it listened:\n{_tail(log)}")
        await asyncio.sleep(0.05)  # the poll's interval; the deadline bounds the wait
    raise TimeoutError(f"chromium wrote no {active} within {timeout:.0f} s:\n{_tail(log)}")


def _tail(log: Path, lines: int = 20) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.is_file() else ""


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill Chromium and every process it started (its own process group), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@contextlib.asynccontextmanager
async def browser(chromium: str | None = None, *, timeout: float = DEADLINE_SECONDS) -> AsyncIterator[Browser]:
    """A headless Chromium listening on 127.0.0.1, with a temporary profile; on exit it is killed and the profile
    removed. Raises FileNotFoundError without a Chromium, RuntimeError/TimeoutError when it does not come up
    within `timeout` s."""
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError(f"no Chromium on PATH (looked for {', '.join(CHROMIUM_NAMES)})")
    root = Path(tempfile.mkdtemp(prefix="site-browser-"))
    profile, log = root / "profile", root / "chromium.log"
    try:
        with log.open("wb") as out:  # a file, not a pipe: nobody reads it while the check runs, and it never fills
            # Popen, not asyncio's: no child watcher may reap it before _stop, so its process group id stays ours.
            process = subprocess.Popen(  # noqa: ASYNC220
                [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                # Its crash reports, certificate store and caches go to the temporary directory, not the user's.
                env={**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / "config"),
                     "XDG_CACHE_HOME": str(root / "cache")},
            )  # fmt: skip
        try:
            port, path = await _devtools_port(profile, process, log, timeout)
            async with aiohttp.ClientSession() as http:
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}{path}", max_msg_size=0)  # screenshots are large
                connection = Connection(ws)
                try:
                    yield Browser(connection)
                finally:
                    await connection.close()
        finally:
            _stop(process)
    finally:
        shutil.rmtree(root, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No access log: the browser reports what failed to load."""


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve the directory `site` over HTTP on 127.0.0.1 on a free port, from a thread, until the block ends.
    Yields the base URL, `http://127.0.0.1:<port>/`."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def built_pages(site: Path) -> list[str]:
    """The pages of a built site as URL paths ("/", "/guides/review/"): every `index.html` under `site`."""
    paths = ("/" + p.parent.relative_to(site).as_posix() + "/" for p in site.rglob("index.html"))
    return sorted(p.replace("/./", "/") for p in paths)


def page_path(url: str, base: str) -> str | None:
    """The URL path of the page `url` links to ("/guides/review/", no fragment or query), or None when it is
    elsewhere or no page (an asset)."""
    target = urlsplit(urldefrag(url).url)
    if f"{target.scheme}://{target.netloc}/" != base:
        return None
    path = target.path.removesuffix("index.html")
    return path if path.endswith(("/", ".html")) else None


@dataclass
class SiteCheck:
    """The figures of one check: pages as URL paths, errors per page, and the search's term and result links
    (absolute URLs on the local server)."""

    base: str
    built: list[str]
    reached: list[str] = field(default_factory=list)
    errors: list[ConsoleError] = field(default_factory=list)
    search_term: str = FALLBACK_RULE_ID
    search_pages: list[str] = field(default_factory=list)  # the pages whose HTML contains the term
    search_hits: list[str] = field(default_factory=list)
    search_match: str | None = None  # the first hit on a page that contains the term
    seconds: float = 0.0

    @property
    def unreached(self) -> list[str]:
        return sorted(set(self.built) - set(self.reached))

    @property
    def not_built(self) -> list[str]:
        """Pages the navigation links to that the build did not produce."""
        return sorted(set(self.reached) - set(self.built))

    @property
    def ok(self) -> bool:
        return not self.unreached and not self.not_built and not self.errors and self.search_match is not None

    def local(self, url: str) -> str:
        return "/" + url.removeprefix(self.base)

    def report(self) -> str:
        lines = [
            f"pages reached from the navigation: {len(self.reached)}",
            f"pages in the build: {len(self.built)}",
            *(f"  not reached from the navigation: {p}" for p in self.unreached),
            *(f"  in the navigation but not built: {p}" for p in self.not_built),
            f"console errors: {len(self.errors)}",
            *(f"  {e}" for e in self.errors),
        ]
        first = self.local(self.search_hits[0]) if self.search_hits else "none"
        lines.append(f"search {self.search_term!r}: {len(self.search_hits)} results, first hit {first}")
        if not self.search_pages:
            lines.append("  no page of the build contains it")
        elif self.search_match is None:
            lines.append(f"  no result links to a page containing it ({', '.join(self.search_pages)})")
        elif self.search_match != self.search_hits[0]:
            lines.append(f"  first hit on a page containing it: {self.local(self.search_match)}")
        lines.append(f"checked in {self.seconds:.1f} s")
        return "\n".join(lines)


_RULE_ID_JS: Final = """((pattern) => {
    const rule = new RegExp(pattern);
    for (const heading of document.querySelectorAll('article h3')) {
        const found = heading.textContent.match(rule);
        if (found) return found[0];
    }
    return null;
})(%s)"""

# Material's search listens for keyup on its input (and re-reads the input when its worker reports the index
# loaded); the results are rendered into the DOM, which a MutationObserver watches until a wanted link shows up.
_SEARCH_JS: Final = """((term, pages, ms) => new Promise((resolve, reject) => {
    const input = document.querySelector('input.md-search__input');
    if (!input) { reject(new Error('no input.md-search__input on the page')); return; }
    const toggle = document.getElementById('__search');
    if (toggle) { toggle.checked = true; toggle.dispatchEvent(new Event('change')); }
    input.focus();
    input.value = term;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: term.slice(-1)}));
    const hits = () => Array.from(document.querySelectorAll('.md-search-result__item a[href]'), a => a.href);
    let observer, timer;
    const found = () => {
        const all = hits();
        // search.highlight adds ?h=<term> to a result's link
        const match = all.find(h => { const u = new URL(h); return pages.includes(u.origin + u.pathname); });
        if (match === undefined) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve({hits: all, match});
    };
    observer = new MutationObserver(found);
    observer.observe(document.body, {childList: true, subtree: true});
    timer = setTimeout(() => { observer.disconnect(); resolve({hits: hits(), match: null}); }, ms);
    found();
}))(%s, %s, %d)"""


def pages_containing(site: Path, term: str) -> list[str]:
    """The pages (URL paths) of the built site whose HTML contains `term`."""
    return [p for p in built_pages(site) if term in (site / p.lstrip("/") / "index.html").read_text(errors="replace")]


async def check_site(site: Path, *, chromium: str | None = None, timeout: float = DEADLINE_SECONDS) -> SiteCheck:
    """Walk the built site `site` in headless Chromium (see the module's docstring) and return the figures; each
    wait is bounded by `timeout` s. Raises what `browser` raises, PageError when a page does not load at all,
    TimeoutError when an awaited event does not come."""
    started = time.monotonic()
    with serve(site) as base:
        result = SiteCheck(base, built_pages(site))
        async with browser(chromium, timeout=timeout) as chrome:
            tab = await chrome.new_tab()
            queue, seen = deque(["/"]), {"/"}
            while queue:  # breadth-first over the navigation
                path = queue.popleft()
                await tab.navigate(urljoin(base, path.lstrip("/")), path, timeout=timeout)
                result.reached.append(path)
                if path == RULES_PAGE:
                    term = await tab.evaluate(_RULE_ID_JS % json.dumps(RULE_ID.pattern))
                    result.search_term = term or FALLBACK_RULE_ID
                links = await tab.evaluate("Array.from(document.querySelectorAll('.md-nav a[href]'), a => a.href)")
                for link in links:
                    target = page_path(link, base)
                    if target is not None and target not in seen:
                        seen.add(target)
                        queue.append(target)
                result.errors += tab.take_errors()
            await tab.navigate(base, "/ (search)", timeout=timeout)
            result.search_pages = pages_containing(site, result.search_term)
            if result.search_pages:  # else no result can be right: the check fails without waiting for one
                wanted = [urljoin(base, p.lstrip("/")) for p in result.search_pages]
                script = _SEARCH_JS % (json.dumps(result.search_term), json.dumps(wanted), timeout * 1000)
                found = await tab.evaluate(script, await_promise=True, timeout=timeout + 10)
                result.search_hits, result.search_match = found["hits"], found["match"]
                await tab.settle(timeout=timeout)
            result.errors += tab.take_errors()
    result.seconds = time.monotonic() - started
    return result


async def screenshot(site: Path, page: str, out: Path, *, full_page: bool = False) -> list[ConsoleError]:
    """Write a PNG of the page at URL path `page` of the built site `site` to `out`; the errors it logged."""
    with serve(site) as base:
        async with browser() as chrome:
            tab = await chrome.new_tab()
            await tab.navigate(urljoin(base, page.lstrip("/")), page)
            await tab.screenshot(out, full_page=full_page)
            return tab.take_errors()


def main(argv: list[str] | None = None) -> int:
    """The CLI: `check <site-dir>` (exit 1 when the check fails) and `screenshot <site-dir> <page> <out.png>`."""
    parser = argparse.ArgumentParser(prog="python -m tests.site_browser", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="walk the navigation, count errors, search a rule id")
    check.add_argument("site", type=Path, help="the built site (mkdocs build --site-dir)")
    shot = commands.add_parser("screenshot", help="a PNG of one page")
    shot.add_argument("site", type=Path)
    shot.add_argument("page", help="the page's URL path, e.g. reference/rules/")
    shot.add_argument("out", type=Path)
    shot.add_argument("--full-page", action="store_true", help="the whole page, not the 1280x900 viewport")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site (no index.html)")
    if find_chromium() is None:
        print(f"no Chromium on PATH (looked for {', '.join(CHROMIUM_NAMES)})", file=sys.stderr)
        return 2
    if args.command == "check":
        result = asyncio.run(check_site(args.site.resolve()))
        print(result.report())
        return 0 if result.ok else 1
    errors = asyncio.run(screenshot(args.site.resolve(), args.page, args.out, full_page=args.full_page))
    print(f"wrote {args.out}")
    for error in errors:
        print(f"  {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
