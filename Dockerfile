# Chess Garden Discord bot. Build:  docker build -t chessgarden .
# Run:    docker run -d --name chessgarden -e DISCORD_TOKEN=... -v chessgarden-data:/data chessgarden
# First run (or after an upgrade), add --sync at the end to register the slash commands.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CHESSGARDEN_DB=/data/chessgarden.sqlite3 \
    CHESSGARDEN_RENDER_CACHE=/data/render-cache

WORKDIR /app

COPY pyproject.toml README.md ./
COPY variants ./variants
COPY renderers ./renderers
COPY storage ./storage
COPY bot ./bot

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

ENTRYPOINT ["chessgarden", "run"]
