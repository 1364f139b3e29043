"""Real components for the queue tests: a PostgreSQL server, the queue web server, headless Chromium.

Import the fixtures into a test module (``from queue_fixtures import db_url, postgres  # noqa: F401``).

A missing PostgreSQL or Chromium skips a test only when the ``CI`` environment variable is unset;
under CI it is a failure (``.ci/run`` installs both).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

SERVE = "import sys; from assay.cli import main; sys.exit(main())"


def missing(what: str) -> None:
    """Skip outside CI; fail in CI (where .ci/run must have installed ``what``)."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI: .ci/run must install it")
    pytest.skip(f"{what} not installed (CI installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    """Poll ``condition`` until it returns a truthy value or ``timeout`` seconds pass (then fail)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class Postgres:
    """A throwaway PostgreSQL server on 127.0.0.1, run as the unprivileged ``postgres`` user when root."""

    def __init__(self):
        bindir = _pg_bin()
        if bindir is None or not (bindir / "postgres").exists():
            missing("PostgreSQL (Debian package postgresql)")
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                missing("the postgres system user (Debian package postgresql)")
        self.dir = Path(tempfile.mkdtemp(prefix="assay-pg-"))
        if self.user:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.port = free_port()
        data = self.dir / "data"
        self._run([str(bindir / "initdb"), "-D", str(data), "-U", "assay", "--auth=trust", "-E", "UTF8",
                   "--no-sync"], check=True)
        self.proc = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(self.port),
             "-k", str(self.dir), "-c", "fsync=off", "-c", "max_connections=200"],
            # the server writes its log for its whole life, longer than any with-block here
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "server.log", "wb"), **self._as_user())  # noqa: SIM115
        wait_for(self._ready, 60, "PostgreSQL to accept connections", 0.1)

    def _as_user(self) -> dict:
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "cwd": str(self.dir)} if self.user else {}

    def _run(self, cmd, check=False):
        proc = subprocess.run(cmd, capture_output=True, text=True, **self._as_user())
        if check and proc.returncode:
            raise AssertionError(f"{cmd[0]} failed: {proc.stderr}")
        return proc

    def _ready(self) -> bool:
        import psycopg

        if self.proc.poll() is not None:
            raise AssertionError(f"postgres exited: {(self.dir / 'server.log').read_text()}")
        try:
            psycopg.connect(self.url("postgres"), connect_timeout=2).close()
            return True
        except psycopg.OperationalError:
            return False

    def url(self, db: str) -> str:
        return f"postgresql://assay@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def emptied(self, name: str = "queue_tests") -> str:
        """The database ``name`` with everything in it dropped (cheaper than a new database per test)."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                         (name,))
        with psycopg.connect(self.url(name), autocommit=True) as conn:
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public")
        return self.url(name)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)  # fast shutdown
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    server = Postgres()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh empty queue database URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "queue.sqlite")
    return request.getfixturevalue("postgres").emptied()


class QueueServer:
    """``assay queue serve`` in a subprocess on a free 127.0.0.1 port."""

    def __init__(self, db: str, lease_seconds: float = 600.0, cwd: Path | None = None):
        self.db, self.lease_seconds, self.cwd = db, lease_seconds, cwd
        self.port = free_port()
        self.proc = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> QueueServer:
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE, "queue", "serve", "--db", self.db, "--port",
                                      str(self.port), "--lease-seconds", str(self.lease_seconds)], cwd=self.cwd,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self._ready, 60, "the queue server to answer", 0.1)
        return self

    def _ready(self) -> bool:
        import http.client

        if self.proc.poll() is not None:
            raise AssertionError(f"queue server exited: {self.proc.stderr.read().decode()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
            conn.request("GET", "/api/me")
            ok = conn.getresponse().status == 401
            conn.close()
            return ok
        except OSError:
            return False

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(browser).exists() and Path(driver).exists()):
        missing("Chromium and ChromeDriver (Debian packages chromium, chromium-driver)")
    return browser, driver


def start_chrome(profile: Path):
    """Headless Debian Chromium driven by Selenium; nothing is downloaded (no Selenium Manager)."""
    browser, driver_path = chromium_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-default-apps", "--window-size=1280,900", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def chrome(tmp_path_factory):
    """One headless Chromium per test module (starting one costs seconds); see :func:`start_chrome`.

    Tests sharing it must not rely on what an earlier test left in a page's storage: pages of one
    server share sessionStorage and localStorage, so :func:`fresh_page` clears them.
    """
    driver = start_chrome(tmp_path_factory.mktemp("chrome-profile"))
    yield driver
    driver.quit()


def fresh_page(driver, url: str, width: int = 1280, height: int = 900) -> None:
    """Open ``url`` with empty storage, at a viewport exactly ``width`` x ``height`` CSS pixels."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    from urllib.parse import urljoin

    driver.get(urljoin(url, "/app.css"))  # same origin, runs no script: nothing signs in with an old token
    driver.execute_script("sessionStorage.clear(); localStorage.clear();")
    driver.get(url)
    assert driver.execute_script("return window.innerWidth") == width


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """Where browser tests write their screenshots: env ``ASSAY_SCREENSHOTS`` (CI keeps it as an
    artifact), else a pytest temporary directory."""
    chosen = os.environ.get("ASSAY_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(driver, folder: Path, name: str) -> Path:
    """A PNG of the whole page (beyond the viewport) at ``folder/name``; returns its path."""
    import base64

    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    # capturing beyond the viewport drops the scrollbar, so the page is laid out at the full window width
    width = max(size["width"], driver.execute_script("return window.innerWidth"))
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1}})
    path = folder / name
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
