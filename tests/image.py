"""The image the container conformance tests run: the one `make image` built, or the sandbox's imitation of it.

With a container engine (podman) on the machine and a current `localhost/gardener-webhook:<version>` (its
`gardener-webhook.context` label equal to tools/image/build.py's hash of what it is built from), the containers run
from that image's own filesystem and config (`podman image mount`, `podman image inspect`), with bubblewrap as the
runtime (tests/pods.py): crun, podman's runtime, cannot start containers on every machine these tests run on (in a
gVisor sandbox it fails on cgroups and on setrlimit), while the image's content is what is under test. Without an
engine, the containers run from the host's Python and virtualenv over the Dockerfile's runtime stage (`Image.
from_dockerfile`), and the line `conformance_image()` returns says so. Under CI (`CI=true`) an engine without a current image is an error:
.ci/run builds it first.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
from pathlib import Path

from tests.pods import Image
from tools.image import build


@functools.cache
def conformance_image() -> tuple[Image, str]:
    """The Image to run containers from and a line saying which it is. Raises RuntimeError under CI when podman is
    there and the built image is missing or stale."""
    if shutil.which("podman") is None:
        return Image.from_dockerfile(), (
            "no container engine (podman) here: the containers run from the host's virtualenv in a sandbox that "
            "imitates the image (Dockerfile's runtime stage)"
        )
    name = build.image_name()
    image = build.inspect(name)
    base = build.inspect(build.BASE)
    if base is None or not build.is_current(image, str(base["Id"])):
        reason = f"{name} is {'stale' if image is not None else 'not built'}: run `make image`"
        if os.environ.get("CI") == "true":
            raise RuntimeError(reason)
        return Image.from_dockerfile(), f"{reason}; until then the containers run from the host's virtualenv"
    assert image is not None
    mount = subprocess.run(["podman", "image", "mount", name], capture_output=True, text=True, check=True)
    atexit.register(subprocess.run, ["podman", "image", "unmount", name], capture_output=True, check=False)
    return Image.from_oci(image["Config"], Path(mount.stdout.strip())), (
        f"the containers run from the built image {name} ({image['Id'][:12]}, {image['Size'] / 2**20:.0f} MiB)"
    )
