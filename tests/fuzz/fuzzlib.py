"""tests/fuzz/fuzzlib.py — what the fuzz drivers (fuzz.py, struct.py) share: a psql call, an
immediate restart that ends a hang ignoring cancel, and the wait for the server after a crash.
The server is the one PGHOST/PGPORT/PGUSER name; DPOBJ_PGCTL (a pg_ctl command prefix run as
the server's user, as scripts/common.sh exports it; tests/fuzz/sanitize.sh's starts the server
with the sanitizer runtime), DPOBJ_PGDATA and DPOBJ_PGLOG let restart() reach it."""
import os
import subprocess
import time


def psql(db, sql, timeout=120):
    """Runs sql (-c) in db; returns (rc, stdout, stderr)."""
    p = subprocess.run(["psql", "-X", "-q", "-At", "-d", db, "-c", sql],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def restart():
    """Ends a hang that ignores cancel: an immediate stop, then a start."""
    pgctl, data = os.environ.get("DPOBJ_PGCTL", "").split(), os.environ.get("DPOBJ_PGDATA")
    if not pgctl or not data:
        return
    log = os.environ.get("DPOBJ_PGLOG") or os.path.join(os.path.dirname(data), "server.log")
    for args in (["-m", "immediate", "-w", "stop"], ["-l", log, "-w", "-t", "120", "start"]):
        subprocess.run(pgctl + ["-D", data] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=300)


def wait_up(db):
    """Whether db answers within two minutes (the server restarts after a crash)."""
    for _ in range(120):
        if psql(db, "SELECT 1", timeout=30)[0] == 0:
            return True
        time.sleep(1)
    return False
