"""Writes a small, deterministic SQLite database for tabwire's real-app
tests: birds(id, name, wingspan_cm, region), 20 rows.

Run: python3 tests/apps/datasette_db.py DIR/birds.db
     datasette serve DIR/birds.db -h 127.0.0.1 -p PORT
Ready when http://127.0.0.1:PORT/-/versions.json answers.
Pages: table /birds/birds (filters, sort: ?_sort=wingspan_cm),
SQL editor /birds?sql=select+*+from+birds (CodeMirror).
"""
import os
import sqlite3
import sys

BIRDS = [
    ("Wandering albatross", 340, "Southern Ocean"),
    ("Andean condor", 310, "South America"),
    ("White stork", 200, "Europe"),
    ("Golden eagle", 220, "Europe"),
    ("Bald eagle", 210, "North America"),
    ("Grey heron", 185, "Europe"),
    ("Great blue heron", 190, "North America"),
    ("Mute swan", 230, "Europe"),
    ("Common raven", 120, "Europe"),
    ("Barn owl", 90, "Europe"),
    ("Snowy owl", 150, "Arctic"),
    ("Peregrine falcon", 110, "Worldwide"),
    ("Common kestrel", 75, "Europe"),
    ("Atlantic puffin", 55, "North Atlantic"),
    ("European robin", 22, "Europe"),
    ("House sparrow", 24, "Worldwide"),
    ("Ruby-throated hummingbird", 10, "North America"),
    ("Emperor penguin", 80, "Antarctica"),
    ("Kea", 90, "New Zealand"),
    ("Laughing kookaburra", 65, "Australia"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: datasette_db.py PATH.db")
    path = sys.argv[1]
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("create table birds (id integer primary key, name text not null, wingspan_cm integer, region text)")
    db.executemany("insert into birds (id, name, wingspan_cm, region) values (?, ?, ?, ?)",
                   [(i + 1, *b) for i, b in enumerate(BIRDS)])
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
