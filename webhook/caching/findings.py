"""Findings remembered across requests: the cache layer's stores for rules, and how a rule declares what it reads.

Rules are plain functions of their inputs. A check whose findings depend only on some list entries (by identity:
the server shares one decoded model per unchanged entry across requests), on values and on the request's clock is
wrapped where it is defined with `remembered` (findings of a list) or `clean_when_empty` (checks of one entry), from
a declaration of what it reads; the key is derived from the call's arguments, never written at a call site. The
stores are passed in: the wrapped check finds them on its `ctx` argument (`ctx.caches`, a `RuleCaches`); without
one (`ctx.caches` None) the check simply runs, which is the plain path the property tests compare with.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

import functools
import inspect
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Protocol, TypeVar

from webhook.domain.field import Finding


class CleanEntries:
    """List entries known to pass a check that reads nothing but the entry and a hashable context key.

    A CloudProfile UPDATE repeats hundreds of machine image versions that an earlier request already judged, and
    the server shares one decoded model per unchanged entry across requests (`caching.entries.DecodedEntries`). A check whose
    findings are a pure function of (entry, context) need not run again on a model it found nothing in: `check`
    is skipped for such an entry. Only clean results are kept, so every finding is computed as
    before and its path and message stay what they were; an entry with findings is judged every time.

    Entries are remembered by identity with a strong reference, so an identity cannot be reused while it is
    remembered; models are never changed after decoding (defaulting copies). context: a hashable value that, with
    the entry, fixes the check's result (the check function itself is part of the key). capacity: (entry, context)
    pairs kept (each pair holds its entry: as many as the entries `DecodedEntries` keeps); beyond it the older half
    is dropped. A caller asks `known` and, when not, runs the check and
    `learn`s its result. Not thread-safe: validators run on one event loop per process.
    The contract: findings that depend only on entries whose content did not change are known (docs/performance.md
    "How a request is kept cheap, with the same answer").
    """

    def __init__(self, capacity: int = 20_000) -> None:
        self.capacity = capacity
        self._clean: dict[tuple[int, object], object] = {}

    def __len__(self) -> int:
        return len(self._clean)

    def known(self, entry: object, context: Hashable) -> bool:
        """Whether the check of `context` found nothing in `entry` before (then it need not run)."""
        return self._clean.get((id(entry), context)) is entry

    def learn(self, entry: object, context: Hashable, found: Sequence[Finding]) -> None:
        """Record what the check of `context` found in `entry`: only an empty result is kept."""
        if found:
            return
        clean = self._clean
        clean[(id(entry), context)] = entry
        if len(clean) > self.capacity:
            self._clean = dict(list(clean.items())[-(self.capacity // 2) :])

    def clear(self) -> None:
        """Forget every entry (tests compare with and without the memo)."""
        self._clean.clear()


_DAY: Final = timedelta(days=1)
FOREVER: Final = datetime.max.replace(tzinfo=UTC)
_EPOCH: Final = datetime.min.replace(tzinfo=UTC)


def stable_until(now: datetime, stamps: Iterable[datetime]) -> datetime | None:
    """The first instant after `now` (aware UTC) that lies a whole number of days from one of `stamps`, at most a day
    ahead; None when `now` is such an instant. Until then, every comparison of `now` with a stamp shifted by whole
    days (expirationDate, lifecycle startTime, "expires within N days", "in N days") comes out as it does at `now`.
    """
    until = now + _DAY
    for stamp in stamps:
        ahead = (stamp - now) % _DAY
        if not ahead:
            return None
        until = min(until, now + ahead)
    return until


class ListFindings:
    """Findings of a check over a list of entries, remembered by the entries' identities, a context and a clock window.

    The companion of `CleanEntries` for checks across entries (duplicates, one supported version per minor,
    expiry warnings): when every entry is the same object as before (the server shares one decoded model per
    unchanged entry, `caching.entries.DecodedEntries`), the same context (every other input of the check, the field path
    included: findings carry it) and `now` lies in [then, until), the findings are those found then. A caller asks
    `known` and, when it returns None, runs the check and `learn`s its findings with `until`: `stable_until` of the
    entries' timestamps for a check that reads the clock, FOREVER for one that does not, None to keep nothing
    (`findings` does both).
    Holds the entries, so their ids are not reused while kept; capacity: results kept, max_entries: entries they
    hold in all (each holds a model, so this bounds the memory a stream of distinct objects can pin); least
    recently used dropped first. Not thread-safe: validators run on one event loop per process. Contract as for `EntryFindings` above.
    """

    def __init__(self, capacity: int = 4096, max_entries: int = 20_000) -> None:
        self.capacity = capacity
        self.max_entries = max_entries
        self._held = 0  # entries held by the kept results
        self._found: OrderedDict[tuple[Any, ...], tuple[tuple[object, ...], datetime, datetime, list[Finding]]] = (
            OrderedDict()
        )

    def __len__(self) -> int:
        return len(self._found)

    def known(
        self, check: Callable[..., Any], entries: Sequence[object], context: Hashable, now: datetime
    ) -> list[Finding] | None:
        """The findings `check` had on these very entries under `context` with a clock in the same window, or None."""
        key = (check, context, *map(id, entries))
        found = self._found.get(key)
        # The key holds the entries' ids and the value holds the entries: ids of live objects are unique, so equal
        # keys mean the very same objects.
        if found is None or not found[1] <= now < found[2]:
            return None
        self._found.move_to_end(key)
        return list(found[3])

    def learn(
        self,
        check: Callable[..., Any],
        entries: Sequence[object],
        context: Hashable,
        since: datetime,
        until: datetime | None,
        found: Sequence[Finding],
    ) -> None:
        """Remember what `check` found on `entries` under `context`, valid for a clock in [since, until) (None:
        nothing is kept)."""
        if until is None:
            return
        if len(entries) > self.max_entries:
            return
        key = (check, context, *map(id, entries))
        previous = self._found.pop(key, None)
        if previous is not None:
            self._held -= len(previous[0])
        self._found[key] = (tuple(entries), since, until, list(found))
        self._held += len(entries)
        while len(self._found) > self.capacity or self._held > self.max_entries:
            self._held -= len(self._found.popitem(last=False)[1][0])

    def findings(
        self,
        check: Callable[..., Any],
        entries: Sequence[object],
        context: Hashable,
        run: Callable[[], list[Finding]],
        *,
        now: datetime | None = None,
        stamps: Callable[[], Iterable[datetime]] | None = None,
    ) -> list[Finding]:
        """`known`, else `run()` learned. now, stamps: for a check that reads the clock, the request's clock and every
        timestamp of the entries it compares with it (kept until `stable_until(now, stamps())`); both None for a
        check that does not (kept for ever)."""
        at = _EPOCH if now is None else now
        found = self.known(check, entries, context, at)
        if found is not None:
            return found
        found = run()
        if now is None:
            self.learn(check, entries, context, _EPOCH, FOREVER, found)
        else:
            self.learn(check, entries, context, now, stable_until(now, stamps() if stamps is not None else ()), found)
        return found

    def clear(self) -> None:
        self._found.clear()
        self._held = 0


class FindingStores:
    """The two stores of findings one worker (or CLI run) keeps: clean entries and findings of lists."""

    def __init__(self, clean: int = 20_000, lists: int = 4096, list_entries: int = 20_000) -> None:
        self.clean = CleanEntries(capacity=clean)
        self.lists = ListFindings(capacity=lists, max_entries=list_entries)


class Context(Protocol):
    """What a remembered check's `ctx` argument offers: the stores (None: remember nothing), the request's clock
    and a hashable `key` of every setting the checks read (feature gates)."""

    @property
    def findings(self) -> FindingStores | None: ...

    @property
    def now(self) -> datetime: ...

    @property
    def key(self) -> Hashable: ...


_F = TypeVar("_F", bound=Callable[..., list[Finding]])
KeyOf = Callable[[Any], Hashable]


class _Declaration:
    """How a wrapped check's arguments make its key: positions of its parameters, the entries parameters (by
    identity; `name` or `name.attribute`), the key functions of the others (default: the value itself, which must
    be hashable), the ignored ones and where `ctx` is."""

    def __init__(
        self, fn: Callable[..., Any], entries: Sequence[str], keys: Mapping[str, KeyOf], ignore: Sequence[str]
    ):
        signature = inspect.signature(fn)
        self.names = list(signature.parameters)
        self.defaults = {n: p.default for n, p in signature.parameters.items() if p.default is not p.empty}
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
            raise TypeError(f"{fn.__qualname__}: a remembered check names each of its parameters")
        if "ctx" not in self.names:
            raise TypeError(f"{fn.__qualname__}: a remembered check takes its context as `ctx`")
        self.ctx_at = self.names.index("ctx")
        self.entries = [tuple(e.split(".")) for e in entries]
        roots = {e[0] for e in self.entries}
        unknown = (roots | set(keys) | set(ignore)) - set(self.names)
        if unknown:
            raise TypeError(f"{fn.__qualname__}: no parameter {', '.join(sorted(unknown))}")
        self.keys = dict(keys)
        # Parameters whose value is part of the key: all but ctx, the ignored ones and those only read for entries.
        valued = [n for n in self.names if n != "ctx" and n not in ignore and (n not in roots or n in keys)]
        self.key_of = [(n, self.keys.get(n, _itself)) for n in valued]

    def ctx_of(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Context:
        """The call's `ctx`, found without building the other arguments (the plain path needs nothing else)."""
        ctx: Context = args[self.ctx_at] if len(args) > self.ctx_at else kwargs["ctx"]
        return ctx

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments by parameter name, defaults included (a check is called with its declared
        parameters, so this is `Signature.bind` without its checks, which cost more than a remembered check saves)."""
        values = dict(zip(self.names, args, strict=False))
        if kwargs:
            values.update(kwargs)
        if len(values) < len(self.names):
            for name, default in self.defaults.items():
                values.setdefault(name, default)
        return values

    def entries_of(self, arguments: Mapping[str, Any]) -> list[Sequence[object]]:
        found: list[Sequence[object]] = []
        for root, *attributes in self.entries:
            value = arguments[root]
            for attribute in attributes:
                value = getattr(value, attribute)
            found.append(value)
        return found

    def key(self, fn: Callable[..., Any], arguments: Mapping[str, Any], ctx: Context) -> tuple[Hashable, ...]:
        """(fn, the context's key, then each valued parameter's key, in the parameters' order)."""
        return (fn, ctx.key, *[of(arguments[name]) for name, of in self.key_of])


def _itself(value: Any) -> Hashable:
    """A parameter's value as its own key part (it must be hashable: the store's lookup raises TypeError if not)."""
    return value  # type: ignore[no-any-return]


def remembered(
    *,
    entries: str | Sequence[str],
    keys: Mapping[str, KeyOf] | None = None,
    clock: Callable[[Sequence[Any]], Iterable[datetime]] | None = None,
    ignore: Sequence[str] = (),
) -> Callable[[_F], _F]:
    """Remember a check's findings (`ListFindings`) for the very same entries and equal other inputs.

    entries: the parameters (or `parameter.attribute`) holding the list entries the check reads, by identity.
    keys: for parameters read only in part, a function giving what is read (`image` -> its name and updateStrategy);
    every other parameter is part of the key as it is (hashable), `ctx` by its `key`. clock: for a check that
    compares `ctx.now` with timestamps of the entries, the function giving them (the findings are kept while no
    comparison can change, `stable_until`); None for a check that reads no clock. ignore: parameters that do not
    change the findings. The check must take `ctx`.
    """
    names = (entries,) if isinstance(entries, str) else tuple(entries)

    def wrap(fn: _F) -> _F:
        declared = _Declaration(fn, names, keys or {}, ignore)

        @functools.wraps(fn)
        def check(*args: Any, **kwargs: Any) -> list[Finding]:
            ctx = declared.ctx_of(args, kwargs)
            stores = ctx.findings
            if stores is None:
                return fn(*args, **kwargs)
            arguments = declared.arguments(args, kwargs)
            lists = declared.entries_of(arguments)
            held = [entry for entries_list in lists for entry in entries_list]
            key = (*declared.key(fn, arguments, ctx), *(len(e) for e in lists))
            return stores.lists.findings(
                fn, held, key, lambda: fn(*args, **kwargs),
                now=ctx.now if clock is not None else None,
                stamps=(lambda: clock(held)) if clock is not None else None,
            )  # fmt: skip

        return check  # type: ignore[return-value]

    return wrap


def clean_when_empty(
    *, entry: str, keys: Mapping[str, KeyOf] | None = None, ignore: Sequence[str] = ("path",)
) -> Callable[[_F], _F]:
    """Skip a check of one entry (`CleanEntries`) that found nothing in this very entry before, under equal other
    inputs. entry: the parameter holding the entry (by identity). keys, ignore: as for `remembered`; the field path
    is ignored by default (a clean result has no paths). The check must read no clock, and take `ctx`."""

    def wrap(fn: _F) -> _F:
        declared = _Declaration(fn, (), keys or {}, (*ignore, entry))

        @functools.wraps(fn)
        def check(*args: Any, **kwargs: Any) -> list[Finding]:
            ctx = declared.ctx_of(args, kwargs)
            stores = ctx.findings
            if stores is None:
                return fn(*args, **kwargs)
            arguments = declared.arguments(args, kwargs)
            item = arguments[entry]
            key = declared.key(fn, arguments, ctx)
            if stores.clean.known(item, key):
                return []
            found = fn(*args, **kwargs)
            stores.clean.learn(item, key, found)
            return found

        return check  # type: ignore[return-value]

    return wrap
