# syntax=docker/dockerfile:1
# vaultgate: serve an Obsidian vault bind-mounted at /vault over MCP (Streamable HTTP on :8765).
#   docker build -t vaultgate .
#   SECRET="$(openssl rand -hex 32)"
#   docker run --rm -p 127.0.0.1:8765:8765 -v ~/Notes:/vault -v vaultgate-state:/state \
#     --user "$(id -u):$(id -g)" -e VAULTGATE_AUTH__MODE=jwt -e VAULTGATE_AUTH__JWT_SECRET="$SECRET" vaultgate
#   docker run --rm -e VAULTGATE_AUTH__JWT_SECRET="$SECRET" vaultgate \
#     token mint --secret-env VAULTGATE_AUTH__JWT_SECRET --sub me --scope "read:vault write:vault"
# Inside the container the server binds 0.0.0.0, so it refuses to start without auth (JWT).
# `--user` runs it as the owner of your vault (default: uid/gid 10001); /state (index, audit and
# confirmation records) is writable by any uid. The base image is pinned by digest; to move it,
# `docker buildx imagetools inspect python:3.11-slim-bookworm` and replace both digests.
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
COPY migrations ./migrations
# The sample vault stays out of the image (the wheel's copy is empty): notes made while trying the
# quick start can never ship.
RUN mkdir -p deploy/sample-vault && pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b
ARG UID=10001
ARG GID=10001
COPY --from=build /wheels /wheels
# OpenCV, the OCR engine's image library (rapidocr-onnxruntime), loads libGL and GLib. Debian's
# security updates move their versions, so they are not pinned (the base image's digest pins the release).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgl1 libglib2.0-0 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid "${GID}" vaultgate \
    && useradd --system --uid "${UID}" --gid "${GID}" --home-dir /state --no-create-home --shell /usr/sbin/nologin vaultgate \
    && pip install --no-cache-dir /wheels/*.whl \
    && vaultgate docs tool-schemas > "$(python -c 'from service.storage.schema_cache import SHIPPED; print(SHIPPED)')" \
    && rm -rf /wheels \
    && mkdir -p /state/cache /state/data /vault \
    && chown -R "${UID}:${GID}" /state \
    && chmod 1777 /state /state/cache /state/data
ENV HOME=/state \
    VAULTGATE_HTTP__HOST=0.0.0.0 \
    VAULTGATE_HTTP__PORT=8765 \
    VAULTGATE_STORAGE__CACHE_DIR=/state/cache \
    VAULTGATE_STORAGE__DATA_DIR=/state/data \
    VAULTGATE_LOG__FORMAT=json
VOLUME ["/state"]
USER ${UID}:${GID}
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["vaultgate", "healthcheck"]
ENTRYPOINT ["vaultgate"]
CMD ["serve", "/vault"]
