"""Coverage-guided fuzzing of ``extract()`` and of the feed parser with atheris (libFuzzer).

    python fuzz/run.py --seconds 60            # all three targets, the time split between them
    python fuzz/run.py --target feed --seconds 30

Targets (:mod:`fuzz.targets`): ``extract`` (arbitrary bytes as a page), ``feed`` (arbitrary
bytes as a feed) and ``stall`` (structure-aware: pages of long runs of white space, digits,
separators, repeated words and dates followed by white space, cut into elements, built from
the input bytes by :func:`fuzz.corpus.stall_page_from_bytes`; issue 11).
Each target runs in its own process (libFuzzer exits when done), seeded with the
generated hostile corpus (:mod:`fuzz.corpus`) and a few valid pages and feeds, with
the project's Python code instrumented for coverage.  An unhandled exception, an
input slower than ``--input-timeout`` seconds (``--stall-timeout`` for ``stall``, whose
pages of up to 200,000 characters must extract in well under a second) or over
``--rss-mb`` of memory is a failure: libFuzzer writes the input to ``fuzz/crashes/`` and the
exit status is non-zero.  Without atheris installed, the same targets run under hypothesis
for the same time (random, not coverage-guided), with the same per-input limit in CPU time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def seeds(target: str) -> list[bytes]:
    """Starting inputs: small hostile cases and valid documents (generated, never stored)."""
    from fuzz import corpus

    page = corpus.article(corpus.paragraphs(4), head='<meta charset="utf-8">').encode()
    if target == "stall":
        return list(corpus.STALL_SEEDS.values())
    if target == "feed":
        item = ("<item><title>Story {0}</title><link>http://fuzz.example/s/{0}</link>"
                "<pubDate>Sun, 12 May 2024 08:30:00 +0200</pubDate>"
                "<description>&lt;p&gt;Text&lt;/p&gt;</description></item>")
        rss = ('<?xml version="1.0"?><rss version="2.0"><channel><title>F</title>'
               + "".join(item.format(i) for i in range(3)) + "</channel></rss>").encode()
        atom = (b'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
                b'<title>A</title><entry><title>One</title><link href="/a/1"/>'
                b"<updated>2024-05-12T08:30:00Z</updated></entry></feed>")
        bomb = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><rss>&b;</rss>'
        return [rss, atom, bomb, rss[: len(rss) // 2], page]
    big = {"20mb_page", "siblings_1m", "nested_100k", "title_1mb"}
    small = [name for name in corpus.CASES if name not in big]
    return [bytes([i % 18]) + corpus.body_of(name)[0] for i, name in enumerate(small)] + [
        b"\x00" + page, b"\x01" + page]


def run_atheris(target: str, seconds: int, args) -> int:
    """Run one target in a child process under libFuzzer; returns its exit status."""
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    for i, seed in enumerate(seeds(target)):
        (work / f"seed-{i}").write_bytes(seed)
    crashes = ROOT / "fuzz" / "crashes"
    crashes.mkdir(exist_ok=True)
    timeout = args.stall_timeout if target == "stall" else args.input_timeout
    cmd = [sys.executable, str(Path(__file__)), "--child", target, str(work),
           f"-max_total_time={seconds}", f"-timeout={timeout}", f"-rss_limit_mb={args.rss_mb}",
           f"-max_len={args.max_len}", f"-artifact_prefix={crashes}/{target}-", "-print_final_stats=1"]
    return subprocess.call(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def child(target: str, libfuzzer_args: list[str]) -> None:
    """In the child: instrument the project, then hand control to libFuzzer (which exits)."""
    import atheris

    with atheris.instrument_imports(include=["newscrawl", "feedparser", "fuzz"]):
        from fuzz.targets import TARGETS
    atheris.Setup([sys.argv[0], *libfuzzer_args], TARGETS[target])
    atheris.Fuzz()


def run_hypothesis(target: str, seconds: int, input_timeout: float) -> int:
    """Fallback: the target under hypothesis until ``seconds`` have passed; an input taking
    over ``input_timeout`` seconds of CPU time fails (:class:`fuzz.timing.TooSlow`)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from fuzz.targets import TARGETS
    from fuzz.timing import cpu_guard

    def fn(data: bytes) -> None:
        with cpu_guard(input_timeout):
            TARGETS[target](data)

    pool = seeds(target)
    inputs = st.one_of(st.binary(max_size=4096), st.sampled_from(pool),
                       st.tuples(st.sampled_from(pool), st.binary(max_size=64), st.integers(0, 4096)).map(
                           lambda t: t[0][: t[2]] + t[1] + t[0][t[2]:]))
    deadline = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < deadline:
        settings(max_examples=200, deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))(given(inputs)(fn))()
        rounds += 1
    print(f"hypothesis: {target}: {rounds * 200} inputs, no failure")
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=60, help="total fuzzing time, split between targets")
    parser.add_argument("--target", choices=("extract", "feed", "stall", "all"), default="all")
    parser.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    parser.add_argument("--input-timeout", type=int, default=30, help="seconds one input may take")
    parser.add_argument("--stall-timeout", type=int, default=10,
                        help="seconds one input of the stall target may take")
    parser.add_argument("--rss-mb", type=int, default=2048, help="memory limit of the fuzzing process")
    parser.add_argument("--max-len", type=int, default=262144, help="largest input libFuzzer generates")
    args = parser.parse_args()
    targets = ["extract", "feed", "stall"] if args.target == "all" else [args.target]
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401
            engine = "atheris"
        except ImportError:
            engine = "hypothesis"
            print("atheris is not installed; fuzzing with hypothesis (not coverage-guided)", file=sys.stderr)
    status = 0
    for target in targets:
        seconds = max(1, args.seconds // len(targets))
        if engine == "atheris":
            code = run_atheris(target, seconds, args)
        else:
            timeout = args.stall_timeout if target == "stall" else args.input_timeout
            code = run_hypothesis(target, seconds, timeout)
        print(f"== {target}: {'ok' if code == 0 else f'FAILED (exit {code})'}", flush=True)
        status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
