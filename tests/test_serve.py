"""``parley serve``: the terminal app in a web browser through textual-serve. A real server on a
free port, the page loaded in the system's headless Chromium (Debian's chromium and
chromium-driver; .ci/run installs them), three commands typed into the page and their replies
read back from what the server sent the page's terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT, free_port

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")

pytestmark = pytest.mark.skipif(  # about 5 s: not marked slow
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="no /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver)",
)

# what the page's terminal is sent, kept as text: xterm.js draws on a canvas, so the page holds no text
RECORD_TERMINAL = """
window.__terminal = [];
const Socket = window.WebSocket;
let order = Promise.resolve();
window.WebSocket = function (url, protocols) {
  const ws = protocols === undefined ? new Socket(url) : new Socket(url, protocols);
  const decoder = new TextDecoder();
  ws.addEventListener("message", (event) => {
    const data = event.data;
    if (typeof data === "string") { window.__terminal.push(data); return; }
    const bytes = data instanceof ArrayBuffer ? Promise.resolve(data) : data.arrayBuffer();
    order = order.then(() => bytes).then((b) => window.__terminal.push(decoder.decode(b, {stream: true})));
  });
  return ws;
};
window.WebSocket.prototype = Socket.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def screen_text(driver) -> str:
    """Everything the page's terminal was sent, escape sequences removed, spaces squeezed."""
    raw = "".join(driver.execute_script("return window.__terminal;"))
    return re.sub(r"\s+", " ", ESCAPES.sub(" ", raw))


def wait_until(condition, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = condition()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def browser(tmp: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",  # a container's small /dev/shm crashes tabs
        f"--user-data-dir={tmp / 'chromium-profile'}",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)  # no driver download
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_TERMINAL})
    return driver


def test_parley_serve_plays_three_commands_in_headless_chromium(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    port = free_port()
    env = dict(os.environ, PARLEY_SAVES=str(tmp_path / "saves"))
    server = subprocess.Popen(
        [sys.executable, "-m", "game.cli", "serve", "harbor-v1", "--port", str(port), "--no-memory"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    driver = None
    try:
        url = f"http://localhost:{port}/"

        def page_served() -> bool:
            assert server.poll() is None, f"parley serve exited: {server.stdout.read()}"
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_until(page_served, 60, "parley serve to answer")
        driver = browser(Path(tempfile.mkdtemp(dir=tmp_path)))
        driver.get(url)
        wait_until(lambda: "The Quay" in screen_text(driver), 90, "the app's first screen in the page")
        keys = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")  # where xterm.js reads keys
        for command, reply in (
            ("look", "Wet granite, coiled rope"),
            ("x mooring post", "bollard"),  # its description, which the side panel does not show
            ("e", "Harbormaster's Office"),
        ):
            before = len(screen_text(driver))
            keys.send_keys(command, Keys.ENTER)
            wait_until(lambda r=reply, b=before: r in screen_text(driver)[b:], 60, f"the reply to {command!r}")
        assert "Traceback" not in screen_text(driver)
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
