"""What is installed is one package, `bridgeshape_mirror` (the rooms are its sub-packages,
mapped from the repository's top-level folders), and an installed copy (not editable) holds
everything a run needs: templates, schemas and catalogues."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "bridgeshape_mirror"
ROOMS = ("dsl", "deals", "store", "sync", "serving", "site_builder")


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


@pytest.mark.slow
def test_the_wheel_installs_one_package_that_runs_the_sample(tmp_path):
    """Build the wheel, install it (no editable finder) into a fresh virtual environment whose
    dependencies come from this one's, and run the sample wiki's update and `deals` from
    outside the repository."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True, cwd=tmp_path,
    )
    (wheel,) = wheels.glob("*.whl")
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
    run = [str(venv / "bin" / "bridgeshape-mirror")]  # the console script, as installed
    out = tmp_path / "out"
    update = subprocess.run(
        [*run, "update", "--dump", str(ROOT / "examples" / "sample-wiki.xml"), "--state", str(tmp_path / "state.sqlite"),
         "--out", str(out), "--deals", "2", "--no-dd", "-q"],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )
    assert update.returncode == 0, update.stderr
    assert (out / "api" / "schema" / "deals.json").is_file()  # schemas
    assert "Convenzioni" in (out / "index.html").read_text(encoding="utf-8") or "convenzion" in (out / "index.html").read_text(encoding="utf-8").lower()  # the Italian catalogue
    assert (out / "conventions" / "42.html").is_file() and (out / "nginx" / "bridgeshape-api.conf").is_file()  # templates
    deals = subprocess.run([*run, "deals", "opener hcp:12+ H:5+", "--count", "2", "--format", "pbn"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    assert deals.returncode == 0, deals.stderr
    assert deals.stdout.count("[Deal ") == 2
