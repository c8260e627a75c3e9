"""A real headless Chromium (Debian `chromium` + `chromium-driver`, scripts/apt-packages.txt) driven by
Selenium, for the HTML report tests. Offline: no network, no first-run, no background fetches, a fresh
profile per session. Tests skip (with the reason) only where Chromium is not installed."""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,900")

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="Chromium absent: install `chromium chromium-driver` (scripts/apt-packages.txt; CI installs them)")

# Every <img> on the page: where it points and whether the browser decoded it.
_IMAGES_JS = """return Array.from(document.images).map(function (i) {
  return {src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth}; });"""


@dataclass
class PageCheck:
    errors: list[dict[str, Any]]   # console / network entries at level SEVERE
    images: list[dict[str, Any]]   # {src, complete, width}

    @property
    def broken_images(self) -> list[str]:
        return [i["src"] for i in self.images if not (i["complete"] and i["width"] > 0)]


@contextmanager
def chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="memora-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver: Any, page: Path) -> PageCheck:
    """Load `page` from disk, wait until every image settled, and collect console errors and images."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.resolve().as_uri())
    WebDriverWait(driver, 20).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && Array.from(document.images).every(i => i.complete);"))
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    return PageCheck(errors, driver.execute_script(_IMAGES_JS))
