FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-wqy-microhei && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir -r requirements.lock && pip install --no-cache-dir --no-deps .
ENV FINRPA_ENV=production FINRPA_CHROMIUM_PATH=/usr/bin/chromium FINRPA_DATA_DIR=/var/lib/finrpa
USER 1000
CMD ["finrpa", "serve"]
