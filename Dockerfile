# The referee as an image: slim, non-root; migrates, then serves (python -m service serve).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY requirements.lock pyproject.toml ./
RUN pip install -r requirements.lock
COPY alembic.ini ./
COPY migrations ./migrations
COPY service ./service
RUN pip install --no-deps . && useradd --create-home --uid 10001 referee
USER referee

ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["python", "-m", "service", "serve"]
