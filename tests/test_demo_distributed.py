"""Two distributed workers on the demo (a real redis-server, skipped without one): one demo server on
one port gives both workers the same URLs, so each of its articles is exported exactly once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from conftest import crawl_settings, free_port, read_jsonl, run_crawl

pytest.importorskip("redis", reason="the redis client is not installed (pip install redis==8.1.0)")
pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (pip install scrapy-redis==0.9.1)")


from newscrawl.sites import load_sites  # noqa: E402
from newscrawl.spiders.loader import spider_class  # noqa: E402

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "demo" / "manifest.json"


@pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")
@pytest_twisted.ensureDeferred
async def test_two_workers_on_the_demo_export_each_article_once(tmp_path, client, redis_url):  # noqa: F811
    import json

    from twisted.internet import defer

    spider = spider_class(load_sites()["demo"])
    workers = ("w1", "w2")
    # One port for both workers, not the stable one: a demo server another test process holds there
    # (pytest-xdist) would be shared, and stopped under these crawls when that test ends.
    port = free_port()
    crawls = await defer.DeferredList([
        defer.ensureDeferred(run_crawl(spider, crawl_settings(
            tmp_path / name, tmp_path / f"{name}.jsonl", NEWSCRAWL_DISTRIBUTED=redis_url, NEWSCRAWL_IDLE_CLOSE=1,
            NEWSCRAWL_SERVE_PORT=port, LOG_LEVEL="WARNING")))
        for name in workers
    ], fireOnOneErrback=True, consumeErrors=True)
    exported = Counter(urlsplit(item["url"]).path for name in workers for item in read_jsonl(tmp_path / f"{name}.jsonl"))
    expected = json.loads(MANIFEST.read_text(encoding="utf-8"))["expected_article_paths"]
    assert sorted(exported) == sorted(expected)
    assert set(exported.values()) == {1}  # none twice
    stats = [crawler.stats.get_stats() for _, crawler in crawls]
    assert all(s["finish_reason"] == "finished" for s in stats)
    assert not any(k.startswith("newscrawl/listing_error/") for s in stats for k in s)  # no offsite listing pages
