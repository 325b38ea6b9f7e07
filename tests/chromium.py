"""Open a local HTML file in headless Chromium (Debian's ``chromium``, installed by .ci/run):
a screenshot, the DOM after parsing, and the page's console messages (Chromium logs them to
stderr as ``INFO:CONSOLE`` lines with ``--enable-logging=stderr``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

CONSOLE = re.compile(r":CONSOLE[^\]]*\] \"([^\n]*)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Opened:
    screenshot: Path
    dom: str
    console: list[str]


def open_page(page: Path, workdir: Path, size: str = "1400,900") -> Opened:
    binary = chromium()
    assert binary is not None
    console: list[str] = []
    png = workdir / f"{page.stem}.png"
    runs = iter(range(100))

    def run(*action: str) -> str:
        profile = workdir / f"chromium-profile-{next(runs)}"  # a fresh profile each time
        done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}", *action,
                               page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
        console.extend(CONSOLE.findall(done.stderr))
        return done.stdout

    run(f"--screenshot={png}")
    dom = run("--dump-dom")
    return Opened(png, dom, console)
