"""Title normalisation, template extraction, config."""

from __future__ import annotations

import pytest

from bridgeshape_mirror.config import ConfigError, load
from bridgeshape_mirror.store.model import Problem, SiteInfo
from bridgeshape_mirror.sync.extract import extract, template_title
from bridgeshape_mirror.sync.titles import normalise, url_form

SITE = SiteInfo(
    namespaces={0: "", 4: "BridgePedia", 10: "Template", 14: "Categoria"},
    namespace_lookup={"modello": 10, "categoria": 14, "category": 14, "template": 10, "bridgepedia": 4, "project": 4},
)


@pytest.mark.parametrize(
    "written, expected",
    [
        ("Convenzione", "Template:Convenzione"),
        ("convenzione", "Template:Convenzione"),
        (" Template:convenzione_ ", "Template:Convenzione"),
        ("template: Convenzione", "Template:Convenzione"),
        ("Modello:Convenzione", "Template:Convenzione"),
        ("Template__Convenzione", "Template:Template Convenzione"),
        (":Convenzione", "Convenzione"),
        ("Convenzione   di_prova", "Template:Convenzione di prova"),
    ],
)
def test_template_names_normalise_as_mediawiki_does(written, expected):
    assert template_title(written, SITE) == expected


def test_page_titles_normalise_in_their_namespace():
    assert normalise("stayman", SITE) == (0, "Stayman")
    assert normalise("categoria:aperture", SITE) == (14, "Categoria:Aperture")
    assert normalise("Project:Regole", SITE) == (4, "BridgePedia:Regole")
    assert normalise("Foo: bar", SITE) == (0, "Foo: bar")  # not a namespace: part of the title
    assert normalise("ècarté", SITE) == (0, "Ècarté")
    case_sensitive = SiteInfo(namespaces={0: ""}, case_sensitive=frozenset({0}))
    assert normalise("iPhone", case_sensitive) == (0, "iPhone")
    assert url_form("Contro sputnik/Varianti d'autore") == "Contro_sputnik/Varianti_d'autore"


@pytest.mark.parametrize(
    "text, raw, problems",
    [
        ("{{Convenzione|shape_constraints=opener H:5+}}", "opener H:5+", ()),
        ("{{convenzione|shape_constraints= opener H:5+ <!-- da rivedere --> }}", "opener H:5+", ()),
        ("{{ Template:Convenzione_\n|nome=X\n|shape_constraints =\n opener H:5+;\n responder H:4+\n}}", "opener H:5+;\n responder H:4+", ()),
        ("{{Modello:Convenzione|shape_constraints=opener H:5+}}", "opener H:5+", ()),
        ("{{Convenzione|shape_constraints=a|shape_constraints=opener S:5+}}", "opener S:5+", ()),
        ("{{Convenzione|nome=X}}", None, (Problem.NO_PARAMETER,)),
        ("{{Convenzione|shape_constraints=<!-- vuoto -->}}", None, (Problem.EMPTY_VALUE,)),
        ("{{Convenzione|shape_constraints=opener H:5+}} {{Convenzione|shape_constraints=x}}", "opener H:5+", (Problem.DUPLICATE_TEMPLATE,)),
        ("Solo testo, {{Altro|shape_constraints=opener H:5+}}", None, (Problem.NO_TEMPLATE,)),
        ("{{:Convenzione|shape_constraints=opener H:5+}}", None, (Problem.NO_TEMPLATE,)),
        ("<!-- {{Convenzione|shape_constraints=opener H:5+}} -->", None, (Problem.NO_TEMPLATE,)),
    ],
)
def test_extraction(text, raw, problems):
    found = extract(text, "Template:Convenzione", "shape_constraints", SITE)
    assert (found.raw, found.problems) == (raw, problems)


def test_config_file_then_flags(tmp_path):
    (tmp_path / "pw").write_text("s3cret\n")
    config_file = tmp_path / "mirror.toml"
    config_file.write_text(
        '[wiki]\napi = "http://w/api.php"\ncontact = "ops@example.org"\nusername = "Bot@m"\npassword_file = "pw"\n'
        '[sync]\nstate = "st/state.sqlite"\ndeadline = 60\n[build]\ndeals = 5\n'
    )
    config = load(str(config_file), {"deadline": 30.0, "template": None})
    assert config.api == "http://w/api.php" and config.password == "s3cret"
    assert config.state == str(tmp_path / "st/state.sqlite")
    assert config.deadline == 30.0 and config.deals == 5 and config.template == "Convenzione"


def test_config_errors_are_named(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[wiki]\napi_url = 'x'\n")
    with pytest.raises(ConfigError, match="unknown key 'api_url'"):
        load(str(bad), {})
    with pytest.raises(ConfigError, match="either"):
        load(None, {"api": "http://w/api.php", "dump": "x.xml"})
    with pytest.raises(ConfigError, match="cannot read"):
        load(str(tmp_path / "missing.toml"), {})


def test_half_the_credentials_is_a_configuration_error(tmp_path, monkeypatch):
    monkeypatch.delenv("BSM_WIKI_PASSWORD", raising=False)
    with pytest.raises(ConfigError, match="'Bot@m' given without a password"):
        load(None, {"api": "http://w/api.php", "username": "Bot@m"})
    (tmp_path / "pw").write_text("s3cret\n")
    config_file = tmp_path / "c.toml"
    config_file.write_text('[wiki]\napi = "http://w/api.php"\npassword_file = "pw"\n')
    with pytest.raises(ConfigError, match="password is given without a user name"):
        load(str(config_file), {})
    monkeypatch.setenv("BSM_WIKI_PASSWORD", "s3cret")
    assert load(None, {"api": "http://w/api.php", "username": "Bot@m"}).password == "s3cret"
