"""gardener-webhook: a validating admission webhook that guards Gardener landscapes."""

__version__ = "0.13.0"
