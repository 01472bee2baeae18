FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain domain
COPY service service
COPY workers workers
RUN pip install --no-cache-dir .
EXPOSE 8000
# gevent worker: every live stream is a greenlet; service/gunicorn_conf.py raises the
# open-file limit and sizes worker_connections from it (raise the container's nofile
# ulimit, e.g. docker compose's `ulimits`, to hold more streams).
CMD ["gunicorn", "-c", "python:service.gunicorn_conf", "service.api.app:wsgi()", \
     "--bind", "0.0.0.0:8000", "--workers", "2"]
