#!/usr/bin/env python3
"""make-sqlite-bad.py — the hostile SQLite databases of tests/sh/hardening3.sh (issue 34).

Each looks like a rocpd database (a rocpd_metadata table and a kernels view or table) and
attacks one bound of the reader:
  recursive_view.db   a kernels view WITH RECURSIVE that never ends (memory grew without bound)
  crossjoin_view.db   a kernels view joining a table to itself four times (10^12 rows: time)
  text_view.db        a kernels view making 10 KB names from nothing (text beyond the file)
  wal_pending.db      a database in WAL mode whose wal_pending.db-wal holds a commit
  nul_names.db        two kernel names that differ after a NUL byte
Run it in this directory: python3 make-sqlite-bad.py
"""
import os
import shutil
import sqlite3


def fresh(name):
    for f in (name, name + "-wal", name + "-shm", name + "-journal"):
        if os.path.exists(f):
            os.remove(f)
    c = sqlite3.connect(name)
    c.execute("CREATE TABLE rocpd_metadata(tag TEXT, value TEXT)")
    return c


def numbers(c, n):
    c.execute("CREATE TABLE t(x INTEGER)")
    c.executemany("INSERT INTO t VALUES(?)", [(i,) for i in range(n)])


c = fresh("recursive_view.db")
c.execute("CREATE VIEW kernels AS WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) "
          "SELECT 'k' || n AS name, n AS start, n + 1 AS end FROM r")
c.commit()
c.close()

c = fresh("crossjoin_view.db")
numbers(c, 1000)
c.execute("CREATE VIEW kernels AS SELECT 'k' AS name, a.x + 1 AS start, a.x + 2 AS end "
          "FROM t a, t b, t c, t d")
c.commit()
c.close()

c = fresh("text_view.db")
numbers(c, 300)
c.execute("CREATE VIEW kernels AS SELECT printf('%.*c', 10000, 'k') || a.x || '_' || b.x AS "
          "name, a.x + 1 AS start, a.x + 2 AS end FROM t a, t b")
c.commit()
c.close()

c = fresh("nul_names.db")
c.execute("CREATE TABLE kernels(name TEXT, start INTEGER, end INTEGER)")
c.execute("INSERT INTO kernels VALUES(?, ?, ?)", ("gemm\x00_a", 100, 200))
c.execute("INSERT INTO kernels VALUES(?, ?, ?)", ("gemm\x00_b", 300, 400))
c.commit()
c.close()

# WAL: the commit stays in the -wal file (no checkpoint), copied while the writer holds it
c = fresh("wal_src.db")
c.execute("CREATE TABLE kernels(name TEXT, start INTEGER, end INTEGER)")
c.execute("INSERT INTO kernels VALUES('k1', 100, 200)")
c.commit()
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("INSERT INTO kernels VALUES('k2', 300, 400)")
c.commit()
shutil.copy("wal_src.db", "wal_pending.db")
shutil.copy("wal_src.db-wal", "wal_pending.db-wal")
c.close()
for f in ("wal_src.db", "wal_src.db-wal", "wal_src.db-shm"):
    if os.path.exists(f):
        os.remove(f)
