"""What the benches read of their own process."""

from __future__ import annotations


def rss_mb() -> float:
    """Resident memory of this process in MB (Linux ``/proc``; 0.0 where it cannot be read)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
