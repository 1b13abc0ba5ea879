"""Judging without the server: `review` (the CI gate: manifests, changes against a base or a cluster), `audit`
(stored objects, PolicyReports), and what they share: reading manifests (`documents`), JUnit and the progress line."""
