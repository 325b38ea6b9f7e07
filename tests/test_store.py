"""The seen-URL store: persistent, per site, canonical keys, WAL mode."""

from __future__ import annotations

import sqlite3

from newscrawl.store import SqliteSeenStore, state_dir


def test_urls_persist_across_instances_per_site(tmp_path):
    store = SqliteSeenStore.in_dir(tmp_path)
    assert not store.contains("bbc", "https://www.bbc.com/news/articles/abc")
    store.add("bbc", ["https://www.bbc.com/news/articles/abc", "https://www.bbc.com/news/articles/abc"])
    store.close()
    again = SqliteSeenStore.in_dir(tmp_path)
    assert again.contains("bbc", "https://www.bbc.com/news/articles/abc")
    assert not again.contains("cnn", "https://www.bbc.com/news/articles/abc")
    assert again.count("bbc") == 1 and again.count() == 1
    again.close()


def test_keys_are_canonical(tmp_path):
    store = SqliteSeenStore(tmp_path / "s.sqlite3")
    store.add("s", ["https://e.com/a?b=2&a=1#comments"])
    assert store.contains("s", "https://e.com/a?a=1&b=2")
    store.close()


def test_database_uses_wal_mode(tmp_path):
    store = SqliteSeenStore(tmp_path / "s.sqlite3")
    store.add("s", ["https://e.com/1"])
    mode = sqlite3.connect(tmp_path / "s.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.close()


def test_state_dir_setting_then_environment_then_default(monkeypatch, tmp_path):
    monkeypatch.delenv("NEWSCRAWL_STATE_DIR", raising=False)
    assert str(state_dir()) == ".newscrawl"
    monkeypatch.setenv("NEWSCRAWL_STATE_DIR", str(tmp_path))
    assert state_dir() == tmp_path
    assert str(state_dir("elsewhere")) == "elsewhere"
