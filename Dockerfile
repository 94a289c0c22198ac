FROM python:3.11-slim

WORKDIR /app
ENV PYTHONUNBUFFERED=1 PECET_HOST=0.0.0.0 PECET_PORT=8000

COPY pyproject.toml README.md alembic.ini ./
COPY app app
COPY engine engine
RUN pip install --no-cache-dir -e .

COPY migrations migrations
COPY seeds seeds
COPY templates templates
COPY static static
COPY locale locale

VOLUME /app/data
EXPOSE 8000
CMD ["pecet", "serve"]
