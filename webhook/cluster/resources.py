"""Where each judged kind is stored in a cluster: the REST resource and scope of every kind a validator judges.

Pure data, read by `review --kubeconfig` (`cluster.stored`) and by the review to default namespaces.
"""

from __future__ import annotations

from typing import Final

# Where each judged kind is stored: (API group, kind) -> (resource, namespaced). Gardener's API types register them
# so (pkg/apis/core, extensions and seedmanagement `register.go`, the CRDs of extensions.gardener.cloud).
STORED_AS: Final[dict[tuple[str, str], tuple[str, bool]]] = {
    ("core.gardener.cloud", "CloudProfile"): ("cloudprofiles", False),
    ("core.gardener.cloud", "NamespacedCloudProfile"): ("namespacedcloudprofiles", True),
    ("core.gardener.cloud", "Shoot"): ("shoots", True),
    ("extensions.gardener.cloud", "OperatingSystemConfig"): ("operatingsystemconfigs", True),
    ("apps", "Deployment"): ("deployments", True),
    ("seedmanagement.gardener.cloud", "Gardenlet"): ("gardenlets", True),
    ("seedmanagement.gardener.cloud", "ManagedSeed"): ("managedseeds", True),
}
