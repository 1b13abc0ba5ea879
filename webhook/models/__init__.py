"""Typed, frozen models of the Kubernetes and Gardener kinds the webhook reads (only the fields rules read)."""
