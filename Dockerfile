# Chess Garden Discord bot. Build:  docker build -t chessgarden .
# Run:    docker run -d --name chessgarden --env-file chessgarden.env -v chessgarden-data:/data chessgarden
#         (chessgarden.env holds DISCORD_TOKEN=...; mode 600; see docs/discord.md)
# First run (or after an upgrade), add --sync at the end to register the slash commands.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CHESSGARDEN_DB=/data/chessgarden.sqlite3 \
    CHESSGARDEN_RENDER_CACHE=/data/render-cache \
    CHESSGARDEN_HEARTBEAT=/tmp/chessgarden.heartbeat

WORKDIR /app

# The whole source tree as .dockerignore filters it (no tests, documents, stores, secrets
# or caches): no package can be left behind here, and pyproject.toml alone decides what
# is installed. tests/test_packaging.py repeats these steps and plays the computer.
COPY . .

# The project itself with its PostgreSQL extra (asyncpg), so that one image serves either
# store; versions come from pyproject.toml.
# hadolint ignore=DL3013
RUN pip install --no-cache-dir '.[postgres]' \
    && groupadd --system --gid 10001 chessgarden \
    && useradd --system --uid 10001 --gid chessgarden --no-create-home --shell /usr/sbin/nologin chessgarden \
    && mkdir -p /data \
    && chown chessgarden:chessgarden /data

USER 10001:10001
VOLUME ["/data"]
# The games' web pages (docs/web.md), served when CHESSGARDEN_WEB=0.0.0.0:8080 is set,
# with CHESSGARDEN_PUBLIC_URL the address players reach: publish it with -p 8080:8080.
EXPOSE 8080

# Healthy while the store opens at the right schema version and the bot's heartbeat
# (bot/service/health.py, written every 30 s from its event loop) is fresh; see `chessgarden doctor`.
HEALTHCHECK --interval=60s --timeout=30s --start-period=120s --retries=3 \
    CMD ["chessgarden", "doctor", "--health"]

ENTRYPOINT ["chessgarden", "run"]
