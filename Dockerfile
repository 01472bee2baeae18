FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain domain
COPY service service
COPY workers workers
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["gunicorn", "service.api.app:wsgi()", "--bind", "0.0.0.0:8000", "--workers", "2", \
     "--worker-class", "gthread", "--threads", "64", "--access-logfile", "-"]
