"""The read-only cluster view: what validators may know about the cluster, and its implementations."""
