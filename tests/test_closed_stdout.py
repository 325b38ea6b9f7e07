"""A reader that stops early (``scrapy extract … | head``) ends the command quietly: exit status 141
(a tool ended by SIGPIPE) or 0, no traceback (newscrawl/commands/stdout.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_evaluate import PARAGRAPHS, article_html
from test_evaluate_command import scrapy_env

PAGE = article_html("News about the harbour", PARAGRAPHS["harbour"] * 40, "2024-03-10T09:30:00+02:00",
                    "Ann Writer")


def _into_closed_pipe(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """Run ``scrapy ARGS`` with its stdout a pipe whose reader has already gone (as ``head`` leaves it)."""
    env, cwd = scrapy_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "scrapy", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # long before the command has started and printed anything
    stderr = proc.stderr.read()
    proc.stderr.close()
    return subprocess.CompletedProcess(proc.args, proc.wait(timeout=300), "", stderr)


@pytest.mark.parametrize("command", ["extract", "list", "templates", "report"])
def test_a_closed_stdout_ends_the_command_quietly(tmp_path, command):
    args = {"extract": ["extract", str(tmp_path / "page.html"), "--format", "text"],
            "list": ["list", "--details"],
            "templates": ["templates", "--state-dir", str(tmp_path / "state")],
            "report": ["report", "--format", "json", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"]}[command]
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    done = _into_closed_pipe(tmp_path, *args)
    assert done.returncode in (0, 141), done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr[-2000:]
