"""Judging one AdmissionReview: `judge.judge` is the one path from request bytes to a response, for the server and
the CLI alike (decode, run the kind's validator, ratchet, apply the policy, answer)."""
