# gardener-webhook container image. Built with: docker build -t gardener-webhook:0.13.0 .
# Two stages: the build stage installs the pinned, hash-checked dependencies of requirements.lock and the
# package into a virtualenv; the runtime stage copies only that virtualenv onto the same slim base.
# The copied virtualenv carries no installer: pip, setuptools and wheel build the package and are uninstalled
# before the copy (with setuptools go its _distutils_hack and distutils-precedence.pth, which every interpreter start
# would otherwise run). Nothing the server, the audit or the kubernetes client imports at run time needs them; the
# build checks that none is importable and that the package's modules import without them.
# The image never writes to its own filesystem at run time (the Deployment mounts it read-only): byte code
# is compiled at build time and PYTHONDONTWRITEBYTECODE stops any later attempt, logs go to stderr, the
# serving certificate is read from --cert-dir (a Secret volume), never generated under certs/, and a kubeconfig's
# inline certificate data is held in memory, not in /tmp. tests/test_containers.py runs every manifest's containers
# that way (read-only root, no /tmp, uid 65532).
ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/gardener-webhook
WORKDIR /src
COPY requirements.lock ./
RUN /opt/gardener-webhook/bin/pip install --require-hashes --no-deps -r requirements.lock
COPY pyproject.toml README.md LICENSE ./
COPY webhook ./webhook
RUN /opt/gardener-webhook/bin/pip install --no-deps --no-build-isolation . \
    && /opt/gardener-webhook/bin/python -m pip uninstall --yes --quiet pip setuptools wheel \
    && /opt/gardener-webhook/bin/python -c "import importlib.util, sys; \
left = [m for m in ('pip', 'setuptools', 'wheel', 'pkg_resources', '_distutils_hack') if importlib.util.find_spec(m)]; \
sys.exit(f'left in the runtime virtualenv: {left}' if left else 0)" \
    && /opt/gardener-webhook/bin/python -c "import webhook.cli, webhook.server, webhook.cluster.live, webhook.offline.report_apply" \
    && /opt/gardener-webhook/bin/gardener-webhook --version \
    && /opt/gardener-webhook/bin/python -m compileall -q /opt/gardener-webhook/lib

FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="gardener-webhook" \
      org.opencontainers.image.description="Validating admission webhook for Gardener landscapes" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /opt/gardener-webhook /opt/gardener-webhook
ENV PATH=/opt/gardener-webhook/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
WORKDIR /
USER 65532:65532
EXPOSE 9443 8080
ENTRYPOINT ["gardener-webhook", "serve"]
CMD ["--cert-dir=/etc/gardener-webhook/tls", "--host=0.0.0.0", "--health-host=0.0.0.0"]
