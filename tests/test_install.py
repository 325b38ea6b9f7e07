"""`pip install .` and `pip install -e .` give a `newscrawl` command that works from any directory.

Each install goes into a fresh virtual environment under tmp_path, built from a copy of the
source tree (so the shared checkout gets no build/ or egg-info), with
``--no-deps --no-build-isolation``: the dependencies and setuptools come from the test's own
environment through a ``.pth`` file, so nothing is downloaded.  The installed command then
crawls the offline demo from an unrelated directory and must export the demo's articles.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "data" / "demo" / "manifest.json"
PYPROJECT = ROOT / "pyproject.toml"
# What a build needs from the checkout; the rest (tests, bench, docs, fuzz) is not part of the package.
SOURCE_ENTRIES = ("newscrawl", "data", "pyproject.toml", "setup.py", "scrapy.cfg", "README.md", "LICENSE")

pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")


def expected_paths() -> set[str]:
    return set(json.loads(MANIFEST.read_text(encoding="utf-8"))["expected_article_paths"])


def copy_source(target: Path) -> Path:
    """The files a build reads, copied to ``target`` (without caches)."""
    target.mkdir()
    for name in SOURCE_ENTRIES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target / name)
    return target


def make_venv(path: Path) -> Path:
    """A virtual environment without pip whose imports fall back to this environment's packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    Path(own, "_parent_env.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    return path


def clean_env() -> dict[str, str]:
    """The environment without anything that would import newscrawl from the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE")}


def pip_install(venv: Path, *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
         "--no-deps", "--no-build-isolation", "--no-index", *args],
        capture_output=True, text=True, env=clean_env(), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def run_newscrawl(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([venv / "bin" / "newscrawl", *args], cwd=cwd, capture_output=True, text=True,
                          env=clean_env(), timeout=300)


def check_demo_crawl(venv: Path, workdir: Path) -> None:
    """`newscrawl list` and `newscrawl crawl demo` from ``workdir``: every demo article exported."""
    listing = run_newscrawl(venv, workdir, "list")
    assert listing.returncode == 0, listing.stderr
    assert "demo" in listing.stdout.split()
    crawl = run_newscrawl(venv, workdir, "crawl", "demo", "-O", "out.jsonl")
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    items = [json.loads(line) for line in (workdir / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {urlsplit(item["url"]).path for item in items} == expected_paths()
    assert len(items) == len(expected_paths()) == 36


PAGE = """<html><head><title>Harbor bridge reopens after repairs - Herald</title></head><body><article>
<h1>Harbor bridge reopens after repairs</h1>
<p>The harbor bridge reopened on Monday after eight months of repairs to its deck and cables, the city said.</p>
<p>Traffic engineers expect the morning queues on the coast road to shorten by half now that both lanes are open.</p>
</article></body></html>"""


def check_extract(venv: Path, workdir: Path) -> None:
    """`newscrawl extract page.html` from ``workdir`` with the classifier method (the shipped skops model)."""
    (workdir / "page.html").write_text(PAGE, encoding="utf-8")
    done = run_newscrawl(venv, workdir, "extract", "page.html", "--method", "classifier")
    assert done.returncode == 0, done.stderr[-3000:]
    article = json.loads(done.stdout)
    assert article["method"] == "classifier"
    assert article["title"] == "Harbor bridge reopens after repairs"
    assert article["text"].startswith("The harbor bridge reopened on Monday")


def data_dir_seen_by(venv: Path, cwd: Path) -> Path:
    probe = subprocess.run([venv / "bin" / "python", "-c",
                            "from newscrawl.resources import data_dir; print(data_dir())"],
                           cwd=cwd, capture_output=True, text=True, env=clean_env(), check=True)
    return Path(probe.stdout.strip())


def test_every_package_is_listed_in_pyproject():
    """pyproject.toml lists the packages (newscrawl.data is mapped from data/): a new subpackage must be added."""
    listed = set(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "newscrawl").rglob("__init__.py")}
    assert on_disk <= listed
    assert listed - on_disk == {"newscrawl.data"}


def test_data_in_a_zipped_package_is_copied_out_for_the_run_and_removed_at_exit(tmp_path):
    """Scrapyd imports a deployed egg from its zip file: the data must still be real files."""
    archive = tmp_path / "newscrawl.egg"
    with zipfile.ZipFile(archive, "w") as egg:
        for module in ("__init__.py", "resources.py"):
            egg.write(ROOT / "newscrawl" / module, f"newscrawl/{module}")
        egg.writestr("newscrawl/data/sites.toml", "[sites]\n")
        egg.writestr("newscrawl/data/demo/site/index.html", "<html>served</html>")
    probe = ("from newscrawl.resources import data_dir; d = data_dir(); "
             "print(d); print((d / 'demo' / 'site' / 'index.html').read_text())")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=clean_env() | {"PYTHONPATH": str(archive)},
                          capture_output=True, text=True, check=True)
    copied, served = done.stdout.splitlines()
    assert served == "<html>served</html>"
    assert Path(copied).name.startswith("newscrawl-data-")
    assert not Path(copied).exists()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip install .` builds and installs, built once from a copy of the source, which
    is then removed: what the wheel holds and what installing it gives are read from the same file."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = copy_source(tmp_path / "src")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                             "--no-index", "-w", str(tmp_path / "dist"), str(source)],
                            capture_output=True, text=True, env=clean_env(), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    shutil.rmtree(source)  # the install must not depend on the tree it was built from
    (built,) = (tmp_path / "dist").glob("newscrawl-*.whl")
    return built


def test_wheel_holds_the_runtime_data_only(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"newscrawl/data/sites.toml", "newscrawl/data/demo/headers.json", "newscrawl/data/demo/site/index.html",
            "newscrawl/data/models/classifier-linear.npz", "newscrawl/data/models/manifest.json",
            "newscrawl/__main__.py", "newscrawl/resources.py"} <= names
    served = {p.relative_to(ROOT / "data").as_posix() for p in (ROOT / "data" / "demo" / "site").rglob("*")
              if p.is_file()}
    assert {"newscrawl/data/" + p for p in served} <= names
    # the demo's build scripts and the evaluation floors stay in the checkout
    assert not any(n.startswith("newscrawl/data/demo/") and n.endswith(".py") for n in names)
    assert "newscrawl/data/quality-floors.json" not in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: BSD-3-Clause" in metadata
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "newscrawl = newscrawl.__main__:main" in entry_points
    assert "settings = newscrawl.settings" in entry_points


def test_pip_install_gives_a_newscrawl_command_that_works_anywhere(tmp_path, wheel):
    venv = make_venv(tmp_path / "venv")
    pip_install(venv, str(wheel))  # what `pip install <source>` builds, then installs
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    assert data_dir_seen_by(venv, workdir).is_relative_to(venv)
    check_demo_crawl(venv, workdir)
    check_extract(venv, workdir)


def test_editable_install_reads_the_checkout_data(tmp_path):
    source = copy_source(tmp_path / "src")
    venv = make_venv(tmp_path / "venv")
    pip_install(venv, "-e", str(source))
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    assert data_dir_seen_by(venv, workdir) == source / "data"
    check_demo_crawl(venv, workdir)
    check_extract(venv, workdir)


def test_every_pinned_requirement_is_a_package_dependency():
    """`pip install .` must bring what `requirements.txt` pins (the baselines are an extra)."""
    import re
    import tomllib

    def name(spec: str) -> str:
        return re.split(r"[<>=!~ ;\[]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {name(d) for d in project["dependencies"]}
    declared |= {name(d) for extra in project.get("optional-dependencies", {}).values() for d in extra}
    pinned = {name(line.split("#")[0]) for line in (ROOT / "requirements.txt").read_text().splitlines()
              if line.split("#")[0].strip() and not line.lstrip().startswith("-")}  # "-e .": newscrawl itself
    assert pinned - declared == set()
