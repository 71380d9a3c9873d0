"""The nginx snippet as text: the template renders exactly the configuration that
`tests/test_nginx_dropin.py` proves on a real nginx (here only `nginx -t`, which takes
milliseconds, checks the snippets for random namespace names; skipped without nginx).

The golden files pin the snippet byte for byte. They were written by the string-building
generator the template replaced (site_builder/nginx.py before issue 16), and rewritten
since only where the configuration changed on purpose (issue 13: the error answers as
files, titles looked up as files).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror.serving.nginx import render_snippet
from bridgeshape_mirror.sync.titles import SPACE_CHARACTERS

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


def test_post_snippet_is_the_golden_one() -> None:
    """The POST half (njs): the script it names, the body size `serve` reads too."""
    from bridgeshape_mirror.serving.nginx import render_post_snippet

    assert render_post_snippet() == (GOLDEN / "post.conf").read_text(encoding="utf-8")
    assert "js_import bridgeshape_post from '/etc/nginx/x.js';" in render_post_snippet(script="/etc/nginx/x.js")


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
        "    proxy_pass_request_body off;\n"
        '    proxy_set_header Content-Length "";\n'
        '    proxy_set_header Content-Type "";\n'
        "    proxy_set_header Host $host;\n"
        "    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n}\n"
    )


# --- namespace names of any character (issue 29) --------------------------------------------

#: A wiki's namespace names (local name -> the lower-cased names it reads as it) that no
#: nginx string holds as they are, or that no title can start with.
AWKWARD_NAMESPACES = {
    "L'Enciclopedia del Bridge": ("l'enciclopedia del bridge", "leb"),
    'Dollari $5 "citati" \\ e ;': ('dollari $5 "citati" \\ e ;', "soldi"),
    "Città 100%": ("città 100%",),
    "   ": ("   ", "vuoto"),
    "Graffe {x}": ("graffe {x}",),
    "Riga\nnuova": ("riga\nnuova",),
    "Colonna": ("colonna", "a:b", "#frammento"),
}


def nginx_token(quoted: str) -> str:
    """A single-quoted nginx parameter as nginx reads it (ngx_conf_read_token)."""
    assert quoted[0] == quoted[-1] == "'"
    out, text, i = [], quoted[1:-1], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            follower = text[i + 1]
            if follower in "'\"\\":
                out.append(follower)
                i += 2
                continue
            if follower in "trn":
                out.append({"t": "\t", "r": "\r", "n": "\n"}[follower])
                i += 2
                continue
        assert text[i] != "'", f"an unescaped quote ends the parameter early: {quoted!r}"
        out.append(text[i])
        i += 1
    return "".join(out)


_PREFIX_RULE = re.compile(r"^    if \(\$bridgeshape_title ~\* ('(?:[^'\\]|\\.)*')\) \{ set \$bridgeshape_title ('(?:[^'\\]|\\.)*'); \}$")


def prefix_rules(snippet: str) -> list[tuple[re.Pattern[bytes], str]]:
    """The snippet's namespace rules as nginx reads them: (regex over bytes, as nginx's PCRE
    matches them, value)."""
    rules = []
    for line in snippet.split("\n"):  # nginx ends a line at LF only (not at U+0085, U+2028...)
        found = _PREFIX_RULE.match(line)
        if found and nginx_token(found[2]).endswith(":$1"):
            rules.append((re.compile(nginx_token(found[1]).encode("utf-8"), re.IGNORECASE), nginx_token(found[2])))
    return rules


def rewritten(rules: list[tuple[re.Pattern[bytes], str]], raw_title: str) -> str | None:
    """The value the first matching rule sets for a raw title (after the space cascades)."""
    for regex, value in rules:
        found = regex.match(raw_title.encode("utf-8"))
        if found:
            return value.replace("$1", found[1].decode("utf-8"))
    return None


def test_namespace_names_of_any_character_are_quoted_or_left_out() -> None:
    snippet = render_snippet(namespaces=AWKWARD_NAMESPACES)
    rules = prefix_rules(snippet)
    # The prefix as a client sends it (raw or percent-encoded, any case), written as the
    # title file has it: `%` and `$`, which no nginx string holds, encoded for the decoding.
    assert rewritten(rules, "L%27Enciclopedia_del_Bridge%3ARegole") == "L'Enciclopedia_del_Bridge:Regole"
    assert rewritten(rules, "l'enciclopedia_DEL_bridge:Regole") == "L'Enciclopedia_del_Bridge:Regole"
    assert rewritten(rules, "LEB_:_Regole") == "L'Enciclopedia_del_Bridge:Regole"
    expected = 'Dollari_%245_"citati"_\\_e_;:Prezzi'
    assert rewritten(rules, "Dollari_%245_%22citati%22_%5C_e_%3B%3APrezzi") == expected
    assert rewritten(rules, 'dollari_$5_"citati"_\\_e_;:Prezzi') == expected
    assert rewritten(rules, "soldi:Prezzi") == expected
    assert rewritten(rules, "Citt%C3%A0_100%25:Conti") == "Città_100%25:Conti"
    assert rewritten(rules, "città_100%:Conti") == "Città_100%25:Conti"
    assert rewritten(rules, "vuoto:Niente") == "___:Niente"  # a blank local name, by its alias
    assert rewritten(rules, "colonna:X") == "Colonna:X"
    # Names no title can start with: out of the rules, each said in a comment of one line.
    notes = [line.strip() for line in snippet.split("\n") if line.strip().startswith("# namespace name")]
    assert notes == [
        '# namespace name "   " left out of the prefix rules: it is blank',
        '# namespace name "#frammento" left out of the prefix rules: no title can start with it',
        '# namespace name "a:b" left out of the prefix rules: no title can start with it',
        '# namespace name "Graffe {x}" left out of the prefix rules: no title can hold it',
        '# namespace name "Riga\\nnuova" left out of the prefix rules: no title can hold it',
    ]
    assert rewritten(rules, "graffe_%7Bx%7D:X") is None and rewritten(rules, "Riga%0Anuova:X") is None
    assert rewritten(rules, "a:b:X") is None


def test_a_namespace_rule_too_long_for_nginx_is_split_or_left_out() -> None:
    """nginx refuses a parameter over 4 KB: many long aliases make several rules; a name
    whose own rule would be longer is left out, said in a comment."""
    aliases = tuple(f"alias numero {i} " + "è" * 40 for i in range(60))
    snippet = render_snippet(namespaces={"Progetto": ("progetto", *aliases), "Lunghissimo": ("ñ" * 400,)})
    rules = prefix_rules(snippet)
    assert len([value for _, value in rules if value == "Progetto:$1"]) > 1
    lines = [line for line in snippet.splitlines() if "$bridgeshape_title ~*" in line]
    assert max(len(part.encode("utf-8")) for line in lines for part in line.split(" ")) <= 4096
    for alias in aliases:
        assert rewritten(rules, alias.replace(" ", "_") + ":X") == "Progetto:X"
    assert f'# namespace name {json.dumps("ñ" * 400)} left out of the prefix rules: its rule would pass' in snippet


#: Any text a wiki's siteinfo may name a namespace with, the characters that need care often.
_NAMES = st.text(st.one_of(st.sampled_from("'\"\\${};#:% _\n\t+Ab"), st.characters(blacklist_categories=())), max_size=30) | st.text(
    st.sampled_from("aè'\\$"), min_size=900, max_size=1200)
_NAMESPACES = st.dictionaries(_NAMES, st.lists(_NAMES, max_size=4).map(tuple), max_size=4)


def _spelled(name: str) -> str:
    """A name as the title holds it once the snippet's space cascades ran."""
    return re.sub("[" + re.escape(SPACE_CHARACTERS) + "]+", "_", name).strip("_")


def _check_rules(namespaces: dict[str, tuple[str, ...]], snippet: str) -> None:
    """Every name is in a rule that reads it raw and percent-encoded and writes the title
    file's prefix, or is said in a comment (itself, or its namespace's local name)."""
    rules = prefix_rules(snippet)
    owners: dict[str, set[str]] = {}
    for canonical, names in namespaces.items():
        for name in (*names, canonical):
            owners.setdefault(_spelled(name).lower(), set()).add(canonical)
    for canonical, names in namespaces.items():
        for name in names:
            if f"# namespace name {json.dumps(name)} left out" in snippet or f"# namespace name {json.dumps(canonical)} left out" in snippet:
                continue
            spelled = _spelled(name)
            wanted = {c.replace(" ", "_").replace("%", "%25").replace("$", "%24") + ":T" for c in owners[spelled.lower()]}
            assert rewritten(rules, spelled + ":T") in wanted, (name, spelled)
            assert rewritten(rules, quote(spelled, safe="_") + "%3AT") in wanted, (name, spelled)


@settings(max_examples=100, deadline=None)
@given(_NAMESPACES)
def test_any_namespace_names_render(namespaces: dict[str, tuple[str, ...]]) -> None:
    _check_rules(namespaces, render_snippet(namespaces=namespaces))


def _nginx() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is not installed (apt-get install -y --no-install-recommends nginx-light)")
        pytest.skip("nginx is not installed")
    return found


@settings(max_examples=25, deadline=None)
@given(_NAMESPACES)
def test_nginx_accepts_the_snippet_for_any_namespace_names(tmp_path_factory: pytest.TempPathFactory, namespaces: dict[str, tuple[str, ...]]) -> None:
    """Both snippets: a mirror folder's, and one in front of a bucket (`origin`)."""
    for options in ({}, {"origin": "http://127.0.0.1:9000/bucket/site"}):
        prefix = tmp_path_factory.mktemp("nginx-t")
        (prefix / "logs").mkdir()
        mirror = None if options else prefix
        (prefix / "snippet.conf").write_text(render_snippet(mirror, namespaces=namespaces, **options), encoding="utf-8")
        (prefix / "nginx.conf").write_text(
            f"pid {prefix}/nginx.pid;\nerror_log {prefix}/logs/error.log warn;\nevents {{ worker_connections 16; }}\n"
            f"http {{ server {{ listen 127.0.0.1:1; root {prefix}; include {prefix}/snippet.conf; }} }}\n",
            encoding="utf-8",
        )
        check = subprocess.run([_nginx(), "-t", "-q", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "logs/error.log")],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0 and "[warn]" not in check.stderr, (options, check.stderr)
