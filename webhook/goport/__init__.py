"""Go semantics the rules quote: time and durations, net/url, strconv and robfig/cron, ported where Gardener's
messages or decisions depend on Go's exact behaviour."""
