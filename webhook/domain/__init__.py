"""The domain: field paths and findings, versions and classifications, the skew policies, quantities, the
Kubernetes feature tables and what a (Namespaced)CloudProfile offers. Pure; imports no view, cache, validator,
server or CLI."""
