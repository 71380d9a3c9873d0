"""A real nginx on 127.0.0.1 (Debian's nginx-light) serving a mirror folder with the snippet
the build writes, and its POST half with Debian's njs module (libnginx-mod-http-js)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        message = "nginx is not installed (apt-get install -y --no-install-recommends nginx-light)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Where Debian's libnginx-mod-http-js puts the module.
NJS_MODULE = Path("/usr/lib/nginx/modules/ngx_http_js_module.so")


def require_njs() -> Path:
    if not NJS_MODULE.exists():
        message = "nginx's njs module is not installed (bash scripts/install-test-packages.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return NJS_MODULE


MAIN_CONF = """\
{modules}
daemon off;
master_process off;
worker_processes 1;
{user}
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 256; }}
http {{
    {mime}
    default_type application/octet-stream;
    access_log {prefix}/logs/access.log;
    gzip on;
    gzip_min_length 1;
    gzip_types application/json;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        root {mirror};
        charset utf-8;
        charset_types text/plain application/json;
        include {snippet};
        {post}
        location / {{
            index index.html;
            try_files $uri $uri/ =404;
        }}
    }}
}}
"""


@dataclass
class Nginx:
    url: str
    prefix: Path
    process: subprocess.Popen[bytes]

    def error_log(self) -> str:
        path = self.prefix / "logs" / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""


def start_nginx(prefix: Path, mirror: Path, snippet_text: str, post: bool = False) -> Nginx:
    """`post`: with the njs module, the POST snippet and its script as the build writes them,
    beside nginx.conf (where the snippet names the script)."""
    from bridgeshape_mirror.serving import nginx as dropin

    binary = nginx_binary()
    for sub in ("logs", "tmp"):
        (prefix / sub).mkdir(parents=True, exist_ok=True)
    snippet = prefix / "bridgeshape.conf"
    snippet.write_text(snippet_text, encoding="utf-8")
    modules, post_include = "", ""
    if post:
        modules = f"load_module {require_njs()};"
        (prefix / dropin.POST_SNIPPET).write_text(dropin.render_post_snippet(), encoding="utf-8")
        (prefix / dropin.POST_SCRIPT).write_bytes(dropin.post_script())
        post_include = f"include {prefix / dropin.POST_SNIPPET};"
    mime = "include /etc/nginx/mime.types;" if Path("/etc/nginx/mime.types").exists() else "types { text/html html; application/json json; }"
    last_error = ""
    for _attempt in range(3):
        port = free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(
            MAIN_CONF.format(
                # As root nginx would switch to `nobody`, who cannot read pytest's folders.
                user="user root;" if os.geteuid() == 0 else "",
                prefix=prefix,
                mime=mime,
                port=port,
                mirror=mirror,
                snippet=snippet,
                modules=modules,
                post=post_include,
            ),
            encoding="utf-8",
        )
        check = subprocess.run([binary, "-t", "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "logs/error.log")],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, f"nginx -t failed:\n{check.stderr}"
        assert "[warn]" not in check.stderr, check.stderr  # e.g. an overflowing variables_hash
        process = subprocess.Popen(
            [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "logs/error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return Nginx(f"http://127.0.0.1:{port}", prefix, process)
            except OSError:
                time.sleep(0.05)
        stop_nginx(process)
        last_error = (prefix / "logs/error.log").read_text(errors="replace") if (prefix / "logs/error.log").exists() else ""
    raise AssertionError(f"nginx did not start:\n{last_error}")


def stop_nginx(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # fast shutdown
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    if process.stderr:
        process.stderr.close()
