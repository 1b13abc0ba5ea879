"""The cache layer: every store that makes a request cheaper without changing its answer, passed in, never global.

- `caches.Caches`: one per server worker (and per CLI run), holding every store below; `admission.judge` asks it and
  tells it, it never calls back into judging.
- `rules.RuleCaches`: what rules may remember (findings of checks, defaulted entries, profile indexes), lent to each
  request (`kinds.RequestInfo.caches`).
- `findings`: the findings stores and the declarations (`remembered`, `clean_when_empty`) that wrap a rule where it
  is defined; the key is derived from what the rule declares it reads.
- `identity.ByIdentity`: values kept per tuple of model objects.
Every store has a property test against the plain path (no caches), and `tests/differential.py` compares the
answers of both over tens of thousands of reviews.
"""
