"""Serving the mirror: the extension's `api.php` answered from the mirror's files.

Two servers answer alike because they read the same rules (`api_rules`): the preview server
(`http_server`, what `bridgeshape-mirror serve` runs; `api_answers` and `static_files` are
its halves) and the nginx drop-in (`nginx`, a configuration rendered from
`templates/nginx.conf.j2` that the build writes beside the mirror's files).
"""

#: Where `bridgeshape-mirror serve` listens unless told otherwise (the port also gives way
#: to $PORT); here, not in `http_server`, so the CLI can name them without importing it.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
