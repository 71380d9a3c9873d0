"""The nginx snippet as text, no nginx needed: the template renders exactly the
configuration that `tests/test_nginx_dropin.py` proves on a real nginx.

The golden files pin the snippet byte for byte. They were written by the string-building
generator the template replaced (site_builder/nginx.py before issue 16), and rewritten
since only where the configuration changed on purpose (issue 13: the error answers as
files, titles looked up as files).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from serving.nginx import render_snippet

GOLDEN = Path(__file__).parent / "golden" / "nginx"


@pytest.mark.parametrize(
    ("golden", "mirror", "options"),
    [
        ("default.conf", "/srv/bridgeshape/output", {}),
        (
            "three-paths-and-validate.conf",
            "/srv/x",
            {"api_paths": ("/api.php", "/w/api.php", "/wiki/api.php"), "validate_upstream": "https://v.example.org"},
        ),
    ],
)
def test_snippet_is_the_golden_one(golden: str, mirror: str, options: dict[str, object]) -> None:
    assert render_snippet(mirror, **options) == (GOLDEN / golden).read_text(encoding="utf-8")


def test_only_the_mirror_path_varies() -> None:
    """Quoting of an awkward path: `'` and `\\` escaped, a trailing `/` dropped."""
    plain = render_snippet("/srv/bridgeshape/output")
    awkward = render_snippet("/srv/it's\\here/")
    assert awkward == plain.replace("'/srv/bridgeshape/output", "'/srv/it\\'s\\\\here").replace(
        "# Mirror: /srv/bridgeshape/output", "# Mirror: /srv/it's\\here"
    )


def test_validate_upstream_adds_the_proxy_and_drops_moduledisabled() -> None:
    without = render_snippet("/srv/x")
    with_upstream = render_snippet("/srv/x", validate_upstream="http://127.0.0.1:8080/")
    assert "moduledisabled" in without and "moduledisabled" not in with_upstream
    assert with_upstream.endswith(
        "location = /__bridgeshape/validate {\n    internal;\n"
        "    proxy_pass http://127.0.0.1:8080/api.php$is_args$args;\n"
        "    proxy_set_header Host $host;\n"
        "    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n}\n"
    )
