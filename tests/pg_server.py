"""A throwaway PostgreSQL server for tests, CI and benchmarks (Debian's ``postgresql`` binaries).

    server = PgServer.start(Path(tempfile.mkdtemp()))   # initdb + pg_ctl start on a free port
    server.url          # postgresql://sonetto@127.0.0.1:PORT/sonetto_test
    server.restart()    # pg_ctl restart (every client connection is cut)
    server.stop_server(); server.start_again()   # away for a while, back on the same port
    server.stop()

Run as root (CI, this workplace) the server runs as the ``postgres`` user (the server refuses to run
as root); its folder is then made theirs. As a script: ``python tests/pg_server.py start DIR``
prints ``URL`` and leaves the server running; ``python tests/pg_server.py stop DIR`` stops it.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

USER = "sonetto"
DATABASE = "sonetto_test"
URL_FILE = "url.txt"
OPTIONS_FILE = "options.json"  # the first start's server options and language: a start again uses them


def bin_dir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` live (PATH first, then Debian's versioned folders)."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@dataclass
class PgServer:
    base: Path
    port: int
    bins: Path

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, *args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        cmd = _as_server_user([str(self.bins / args[0]), *args[1:]])
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.base,
                              env={**os.environ, **env} if env else None)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done

    @classmethod
    def start(cls, base: Path, *, fsync: bool = False, bins: Path | None = None, language: str = "") -> "PgServer":
        """A new cluster in ``base`` (created; must be reachable by the server user), started.
        ``fsync`` off by default: tests restart the server cleanly and never need durability.
        ``bins``: another installation's binaries (default: :func:`bin_dir`). ``language`` ("de",
        "zh_CN"): the server's messages in it (when its translations are installed), as a server set up
        with ``lc_messages`` in that language answers (gettext's ``LANGUAGE`` under the C.UTF-8 locale:
        no system locale needs to be generated)."""
        bins = bins or bin_dir()
        if bins is None:
            raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) were not found")
        base.mkdir(parents=True, exist_ok=True)
        (base / "sock").mkdir(exist_ok=True)
        if os.geteuid() == 0:
            os.chmod(base, 0o755)
            shutil.chown(base, "postgres", "postgres")
            shutil.chown(base / "sock", "postgres", "postgres")
        server = cls(base, _free_port(), bins)
        server._run("initdb", "-D", str(server.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale")
        options = (f"-p {server.port} -k {base / 'sock'} -c listen_addresses=127.0.0.1 -c max_connections=200"
                   + ("" if fsync else " -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
                   + (" -c lc_messages=C.UTF-8" if language else ""))
        (base / OPTIONS_FILE).write_text(json.dumps({"options": options, "language": language}), encoding="utf-8")
        server._start()
        server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", USER, DATABASE)
        (base / URL_FILE).write_text(f"{server.port}\n", encoding="utf-8")
        return server

    @classmethod
    def attach(cls, base: Path) -> "PgServer":
        """The server a ``start`` left running in ``base``."""
        bins = bin_dir()
        if bins is None:
            raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) were not found")
        return cls(base, int((base / URL_FILE).read_text(encoding="utf-8").split()[0]), bins)

    def ask_password(self, roles: dict[str, str], rejected: tuple[str, ...] = ()) -> None:
        """Make login roles that must give their password over TCP (SCRAM; ``roles``: name → password) and
        roles the server shuts out (``rejected``); every other role is trusted as before."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            for user, password in roles.items():
                conn.execute(f"CREATE ROLE {user} LOGIN PASSWORD '{password}'")
            for user in rejected:
                conn.execute(f"CREATE ROLE {user} LOGIN")
        lines = ["local all all trust", *(f"host all {user} 127.0.0.1/32 scram-sha-256" for user in roles),
                 *(f"host all {user} 127.0.0.1/32 reject" for user in rejected), "host all all 127.0.0.1/32 trust"]
        (self.data / "pg_hba.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self._run("pg_ctl", "-D", str(self.data), "reload")

    def restart(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.base / "server.log"), "-m", "fast", "-w", "restart")

    def stop_server(self) -> None:
        """Stop the server, keep its data (``start_again`` brings it back on the same port)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def start_again(self) -> None:
        """Start a server ``stop_server`` stopped: on its port and socket folder, with its options, as before."""
        self._start()

    def _start(self) -> None:
        first = json.loads((self.base / OPTIONS_FILE).read_text(encoding="utf-8"))
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.base / "server.log"), "-o", first["options"], "-w",
                  "start", env={"LANGUAGE": first["language"]} if first["language"] else None)

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"PostgreSQL on port {self.port} did not come up")

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60)
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.base, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print("usage: pg_server.py start|stop DIR", file=sys.stderr)
        return 2
    base = Path(argv[2])
    if argv[1] == "start":
        print(PgServer.start(base).url)
    else:
        PgServer.attach(base).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
