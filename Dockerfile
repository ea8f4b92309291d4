# vaultgate: serve an Obsidian vault bind-mounted at /vault over MCP (Streamable HTTP on :8765).
#   docker build -t vaultgate .
#   docker run --rm -p 127.0.0.1:8765:8765 -v ~/Notes:/vault -v vaultgate-state:/home/vaultgate/state vaultgate /vault
# The index and the audit/confirmation records live in /home/vaultgate/state (a volume), never in /vault.
# Inside the container the server binds 0.0.0.0, so auth must be configured (JWT) unless you
# explicitly accept the risk of an unauthenticated container port: see README "Deployment".
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
COPY migrations ./migrations
COPY deploy/sample-vault ./deploy/sample-vault
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 1000 vaultgate
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
RUN mkdir -p /home/vaultgate/state && chown vaultgate /home/vaultgate/state
USER vaultgate
ENV VAULTGATE_HTTP__HOST=0.0.0.0 \
    VAULTGATE_HTTP__PORT=8765 \
    VAULTGATE_STORAGE__CACHE_DIR=/home/vaultgate/state/cache \
    VAULTGATE_STORAGE__DATA_DIR=/home/vaultgate/state/data \
    VAULTGATE_LOG__FORMAT=json
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz').status==200 else 1)"
ENTRYPOINT ["vaultgate", "serve"]
CMD ["/vault"]
