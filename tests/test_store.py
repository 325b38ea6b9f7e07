"""The seen-URL store: persistent, per site, canonical keys, WAL mode."""

from __future__ import annotations

import sqlite3

from newscrawl.state.seen_store import SqliteSeenStore, state_dir


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


def test_run_lock_is_exclusive_notes_its_pid_and_is_free_again_when_released(tmp_path):
    import os

    from newscrawl.state.run_lock import RunLock

    first, second = RunLock(tmp_path / "site.lock"), RunLock(tmp_path / "site.lock")
    assert first.acquire()
    assert not second.acquire()  # flock holds between two open files, also in one process
    assert second.holder() == str(os.getpid())
    first.release()
    assert second.acquire()
    second.release()


def test_check_sqlite_finds_damage_and_passes_a_sound_store(tmp_path):
    import pytest

    from newscrawl.state.seen_store import CorruptStore, check_sqlite, move_aside

    check_sqlite(tmp_path / "absent.sqlite3")  # nothing to check yet
    store = SqliteSeenStore(tmp_path / "seen.sqlite3")
    store.add("s", [f"https://e.com/{i}" for i in range(2000)])
    store.close()
    check_sqlite(tmp_path / "seen.sqlite3")

    (tmp_path / "junk.sqlite3").write_bytes(b"not a database at all" * 200)
    with pytest.raises(CorruptStore):
        check_sqlite(tmp_path / "junk.sqlite3")

    # A sound header over damaged pages: quick_check reports them.
    data = bytearray((tmp_path / "seen.sqlite3").read_bytes())
    data[4096 * 3: 4096 * 6] = b"\xa5" * (4096 * 3)
    (tmp_path / "damaged.sqlite3").write_bytes(bytes(data))
    with pytest.raises(CorruptStore):
        check_sqlite(tmp_path / "damaged.sqlite3")
    moved = move_aside(tmp_path / "damaged.sqlite3")
    assert moved.name.startswith("damaged.sqlite3.corrupt-") and not (tmp_path / "damaged.sqlite3").exists()
