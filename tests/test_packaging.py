"""What is installed is one package, `bridgeshape_mirror` (the rooms are its sub-packages,
mapped from the repository's top-level folders), and an installed copy (not editable) holds
everything a run needs: templates, schemas and catalogues."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "bridgeshape_mirror"
ROOMS = ("dsl", "deals", "store", "sync", "serving", "site_builder")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_pyproject_lists_every_package_under_the_one():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = {
        ".".join((PACKAGE, *init.parent.relative_to(ROOT).parts))
        for room in ROOMS
        for init in (ROOT / room).rglob("__init__.py")
    } | {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / PACKAGE).rglob("__init__.py")}
    assert found == listed
    assert all(name == PACKAGE or name.startswith(f"{PACKAGE}.") for name in listed)
    assert setuptools["package-dir"] == {f"{PACKAGE}.{room}": room for room in ROOMS}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once for the installs below."""
    wheels = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True, cwd=wheels,
    )
    (built,) = wheels.glob("*.whl")
    return built


def assert_runs_the_sample(command: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """The installed console script `command` runs the sample wiki's update and `deals` from
    outside the repository, with every file an install must hold."""
    run = [str(command)]
    out = tmp_path / "out"
    update = subprocess.run(
        [*run, "update", "--dump", str(ROOT / "examples" / "sample-wiki.xml"), "--state", str(tmp_path / "state.sqlite"),
         "--out", str(out), "--deals", "2", "--no-dd", "-q"],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )
    assert update.returncode == 0, update.stderr
    assert update.stderr == ""  # -q: a run that works prints nothing
    assert (out / "api" / "schema" / "deals.json").is_file()  # schemas
    assert "Convenzioni" in (out / "index.html").read_text(encoding="utf-8") or "convenzion" in (out / "index.html").read_text(encoding="utf-8").lower()  # the Italian catalogue
    assert (out / "conventions" / "42.html").is_file() and (out / "nginx" / "bridgeshape-api.conf").is_file()  # templates
    deals = subprocess.run([*run, "deals", "opener hcp:12+ H:5+", "--count", "2", "--format", "pbn"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    assert deals.returncode == 0, deals.stderr
    assert deals.stdout.count("[Deal ") == 2
    validate = subprocess.run([*run, "validate", "--lang", "it", "opener H:5+ hcp:40"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert validate.returncode == 1 and "non valido: 1 errore" in validate.stdout  # the grammar, and the Italian catalogue
    version = subprocess.run([*run, "--version"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert version.stdout == f"bridgeshape-mirror {VERSION}\n", version


@pytest.mark.slow
def test_the_wheel_installs_one_package_that_runs_the_sample(wheel: Path, tmp_path: Path) -> None:
    """Install the wheel (no editable finder) into a fresh virtual environment whose
    dependencies come from this one's, and run the sample from outside the repository."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    before = set(os.listdir(site))
    # pip's --python: into that environment (this one's own install is left alone)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)], check=True)
    installed = set(os.listdir(site)) - before
    assert {name for name in installed if not name.endswith(".dist-info")} == {PACKAGE}
    assert len([name for name in installed if name.endswith(".dist-info")]) == 1
    # the dependencies from this environment's site-packages (a path: its .pth files, the
    # editable finder among them, are not read there)
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    where = subprocess.run([str(python), "-c", f"import {PACKAGE}.dsl, {PACKAGE}.site_builder; print({PACKAGE}.dsl.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path, env=env).stdout
    assert where.startswith(str(site))
    for room in ROOMS:
        found = subprocess.run([str(python), "-c", f"import importlib.util; print(importlib.util.find_spec({room!r}))"],
                               check=True, capture_output=True, text=True, cwd=tmp_path, env=env).stdout.strip()
        assert found == "None", f"{room} is importable on its own from the installed copy"
    assert_runs_the_sample(venv / "bin" / "bridgeshape-mirror", tmp_path, env)  # the console script, as installed


def pipx() -> list[str]:
    """pipx as a user has it: Debian's package (scripts/install-test-packages.sh), or pip's."""
    if shutil.which("pipx"):
        return [shutil.which("pipx") or "pipx"]
    if importlib.util.find_spec("pipx") is not None:
        return [sys.executable, "-m", "pipx"]
    message = "pipx is missing: apt-get install pipx (scripts/install-test-packages.sh)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.mark.slow
def test_pipx_installs_the_wheel_as_a_tool_that_runs_the_sample(wheel: Path, tmp_path: Path) -> None:
    """`pipx install` of the wheel, as users install a command-line tool: its own virtual
    environment, with the dependencies pip resolves from pyproject's ranges, and the command
    on pipx's bin folder (all of pipx's folders in tmp). Nothing of this environment is seen."""
    home, bin_dir = tmp_path / "pipx", tmp_path / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PIPX_HOME=str(home), PIPX_BIN_DIR=str(bin_dir), PIPX_MAN_DIR=str(tmp_path / "man"),
               PIP_CACHE_DIR=str(tmp_path / "pip-cache"))
    # --python: the interpreter the tests run on (pipx's default is the one pipx runs on).
    done = subprocess.run([*pipx(), "install", "--python", sys.executable, str(wheel)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    command = bin_dir / "bridgeshape-mirror"
    assert command.is_file() and str(command.resolve()).startswith(str(home))
    listed = subprocess.run([*pipx(), "list", "--short"], capture_output=True, text=True, env=env, check=True).stdout
    assert listed.split() == ["bridgeshape-mirror", VERSION]
    python = home / "venvs" / "bridgeshape-mirror" / "bin" / "python"
    where = subprocess.run([str(python), "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path, env=env).stdout
    assert where.startswith(str(home)) and "site-packages" in where  # not this checkout, not an editable finder
    assert_runs_the_sample(command, tmp_path, env)
