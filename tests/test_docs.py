"""The user docs match the code: every setting the package reads is in docs/configuration.md,
every site key in docs/sites.md, every command the README lists exists, every link resolves,
and the papers are cited by their authors rather than by file numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
README = ROOT / "README.md"
SETTING_NAME = re.compile(r"(?<!\w)NEWSCRAWL_[A-Z0-9_]+")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
COMMAND_ROW = re.compile(r"^\| `scrapy ([a-z-]+)", re.MULTILINE)


def package_settings() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "newscrawl").rglob("*.py"):
        names.update(SETTING_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def test_every_setting_the_package_reads_is_documented():
    documented = set(SETTING_NAME.findall((ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")))
    missing = package_settings() - documented
    assert not missing, f"settings missing from docs/configuration.md: {sorted(missing)}"
    assert len(documented) > 20


def test_every_documented_setting_exists():
    documented = set(SETTING_NAME.findall((ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")))
    stale = documented - package_settings()
    assert not stale, f"docs/configuration.md documents settings the package does not read: {sorted(stale)}"


def test_every_site_key_and_politeness_key_is_documented():
    from newscrawl.sites import _KEYS, POLITENESS_SETTINGS

    text = (ROOT / "docs" / "sites.md").read_text(encoding="utf-8")
    missing = [key for key in [*_KEYS, *POLITENESS_SETTINGS] if f"`{key}`" not in text]
    assert not missing, f"site keys missing from docs/sites.md: {missing}"


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: p.name)
def test_links_resolve(page):
    for target in MARKDOWN_LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_every_command_the_readme_lists_exists():
    from scrapy.cmdline import _get_commands_dict
    from scrapy.utils.project import get_project_settings

    listed = set(COMMAND_ROW.findall(README.read_text(encoding="utf-8")))
    assert {"crawl", "crawlall", "extract", "evaluate"} <= listed
    known = set(_get_commands_dict(get_project_settings(), inproject=True))
    assert listed <= known, f"README lists unknown commands: {sorted(listed - known)}"


def test_readme_is_a_readme_and_papers_are_cited_by_authors():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 220
    assert text.splitlines()[0] == "# newscrawl"
    for page in [README, *DOCS]:
        body = page.read_text(encoding="utf-8")
        assert not re.search(r"\bseed 00\d", body, re.IGNORECASE), f"{page.name} cites a paper by file number"
        assert not re.search(r"\bsession \d", body, re.IGNORECASE), f"{page.name} reads like a work log"


CODE_SPAN = re.compile(r"`(scrapy [a-z][^`]*)`")
FENCE = re.compile(r"```(?:bash|sh|console)?\n(.*?)```", re.DOTALL)


def documented_commands() -> list[tuple[str, str]]:
    """(page, command line) of every `scrapy ...` the README and docs show, inline or in a block."""
    found = []
    for page in [README, *DOCS]:
        text = page.read_text(encoding="utf-8")
        found += [(page.name, m.group(1)) for m in CODE_SPAN.finditer(text)]
        for block in FENCE.findall(text):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.removeprefix("$ ").split(" #")[0].strip()
                if line.startswith("scrapy "):
                    found.append((page.name, line))
    return found


def test_every_documented_command_line_parses_with_the_commands_options():
    """Each documented `scrapy CMD ...` (not the synopses with [optional] parts) is accepted by the
    command's own option parser: no unknown option, no option missing its value."""
    import argparse
    import shlex

    from scrapy.cmdline import _get_commands_dict
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    commands = _get_commands_dict(settings, inproject=True)
    checked, wrong = 0, []
    for page, line in documented_commands():
        if any(c in line for c in "[]|<>"):
            continue  # a synopsis, not a command line
        tokens = shlex.split(line.replace("…", ""))
        command = commands.get(tokens[1])
        if command is None:
            wrong.append((page, line, "unknown command"))
            continue
        parser = argparse.ArgumentParser(prog=f"scrapy {tokens[1]}", exit_on_error=False, add_help=False)
        command.settings = settings
        command.add_options(parser)
        parser.add_argument("args", nargs="*")
        try:
            _, rest = parser.parse_known_args(tokens[2:])
        except argparse.ArgumentError as exc:
            wrong.append((page, line, str(exc)))
            continue
        if [r for r in rest if r.startswith("-")]:
            wrong.append((page, line, f"unknown options {rest}"))
        checked += 1
    assert checked > 30
    assert not wrong, wrong


def test_the_documented_list_output_is_what_scrapy_list_prints():
    import os
    import subprocess
    import sys

    text = (ROOT / "docs" / "sites.md").read_text(encoding="utf-8")
    block = text.split("$ scrapy list --details\n", 1)[1].split("```", 1)[0]
    shown = [line for line in block.splitlines() if line.strip()]
    done = subprocess.run([sys.executable, "-m", "scrapy", "list", "--details"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout.splitlines()
    assert len(shown) >= 3 and all(line in printed for line in shown), (shown, printed)


def test_the_train_command_is_not_promised_never_to_replace_the_shipped_models():
    """`scrapy train --replace-shipped` does write over them: no page says it never does."""
    for page in [README, *DOCS]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"never (over|overwrites?)[^.]{0,40}(shipped|models)", text), page.name
