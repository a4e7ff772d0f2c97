"""Appends nights to a store in a loop, printing each night's id once its file is in place (the
kill -9 and concurrency tests run it as a subprocess)."""

import sys

from trajguard_testkit.nights import night

from trajguard.nights import record_night

store, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(count):
    record_night(store, night(f"{prefix}-{i:03d}", date=f"2026-12-{1 + i % 28:02d}", seed=i))
    print(f"{prefix}-{i:03d}", flush=True)
