"""The admission protocol and the validator seam: the AdmissionReview on the wire (`wire`), what a validator is
given and returns (`kinds`), the answers (`responses`), the text of findings (`rendering`), rule modes
(`policy`) and what the API server's strict decoding refuses before any webhook is asked
(`fieldvalidation`). Below the validators and the cache layer; judging (`webhook.judging`) sits above them."""
