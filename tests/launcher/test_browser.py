"""Neo4j Browser without Docker, in a real browser: `graphmem neo4j start` serves Browser,
Debian's headless Chromium (driven by its chromedriver, nothing downloaded) opens it,
connects with the launcher's credentials, gets graphmem's style on connect, runs the
timeline query of the Browser kit on a small memory and draws it. The screenshot of the
drawn graph is docs/browser.png."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from graphmem import HashingEmbedder, Memory, _browser

from ..browser_story import write_story
from .cli import env_lines, neo4j_cli

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "browser.png"
TENANT = "browser-demo"
BUDGET = 90  # seconds for the browser's part: page load to screenshot (each wait is bounded too)


@pytest.fixture(scope="module")
def browser_neo4j(tmp_path_factory):
    state = tmp_path_factory.mktemp("browser") / "state"
    lines = env_lines(neo4j_cli(state, "start", "--ephemeral"))
    try:
        yield lines
    finally:
        neo4j_cli(state, "stop", check=False)


@pytest.fixture
def chrome(monkeypatch):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert binary and driver, "install Debian's chromium and chromium-driver (make test does: apt-get install -y chromium chromium-driver)"
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must not look for drivers online
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1000", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(driver), options=options)
    browser.set_page_load_timeout(60)
    try:
        yield browser
    finally:
        browser.quit()


def one_line(cypher: str) -> str:
    """A query as one editor line (Enter would run it): comments dropped, lines joined."""
    return " ".join(line.strip() for line in cypher.splitlines() if line.strip() and not line.strip().startswith("//"))


def test_browser_draws_the_styled_timeline(browser_neo4j, chrome):
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url = browser_neo4j["NEO4J_BROWSER_URL"]
    assert url.startswith("http://127.0.0.1:") and url.endswith("/browser/")
    with Memory(browser_neo4j["NEO4J_URI"], (browser_neo4j["NEO4J_USER"], browser_neo4j["NEO4J_PASSWORD"]),
                tenant=TENANT, embedder=HashingEmbedder(64)) as memory:
        memory.setup()
        memory.erase(scope="acme")  # one story, also when this Neo4j is reused by hand
        write_story(memory)

    def wait(seconds, condition, what):
        return WebDriverWait(chrome, seconds, poll_frequency=0.25).until(lambda _: condition(), message=what)

    def css(selector):
        return chrome.find_elements(By.CSS_SELECTOR, selector)

    def frames():
        return [f.text for f in css("[data-testid=frameCommand]")]

    def run(command):
        before = len(css("[data-testid=frame]"))
        css("[data-testid=activeEditor] textarea")[0].send_keys(command)
        css("[data-testid=editor-Run]")[0].click()
        wait(20, lambda: len(css("[data-testid=frame]")) > before, f"no frame for {command[:40]!r}")

    started = time.monotonic()
    chrome.get(url)  # the printed address, as a person opens it
    wait(45, lambda: css("[data-testid=password]") and css("[data-testid=boltaddress]"), "Browser's connect form did not load")
    port = browser_neo4j["NEO4J_URI"].rsplit(":", 1)[1]
    # Browser proposes the launcher's Bolt address, read from the HTTP server's discovery document
    wait(10, lambda: css("[data-testid=boltaddress]")[0].get_attribute("value") == f"127.0.0.1:{port}",
         "Browser does not propose the launcher's Bolt address")
    def typed(field, value):
        # the form is in the page before it takes input (a CI run met a field not yet
        # interactable): type until the field holds the value
        try:
            box = css(f"[data-testid={field}]")[0]
            if box.get_attribute("value") != value:
                box.clear()
                box.send_keys(value)
            return css(f"[data-testid={field}]")[0].get_attribute("value") == value
        except (ElementNotInteractableException, StaleElementReferenceException):
            return False

    for field, value in (("username", browser_neo4j["NEO4J_USER"]), ("password", browser_neo4j["NEO4J_PASSWORD"])):
        wait(20, lambda field=field, value=value: typed(field, value), f"could not type the {field}")
    css("[data-testid=connect]")[0].click()
    wait(45, lambda: not css("[data-testid=disconnectedBanner]") and not css("[data-testid=connect]"),
         "Browser did not connect")
    # browser.post_connect_cmd: graphmem's style is applied as soon as Browser has connected
    wait(30, lambda: any(f.startswith(":style {") for f in frames()), "the post-connect :style did not run")

    run(f":param tenant => '{TENANT}'")
    run(":param subject => 'Alice'")
    run(one_line(_browser.query("timeline").text))
    wait(30, lambda: len(css("svg g.node")) >= 4 and len(css("svg g.relationship")) >= 3,
         "the timeline was not drawn")
    time.sleep(2)  # let the force layout settle before reading positions and taking the picture

    fills = {c.get_attribute("fill").upper() for c in css("svg g.node circle.b-outline")}
    style = _browser.style()
    assert style["node.Fact"]["color"] in fills and style["node.Entity"]["color"] in fills, fills
    captions = " ".join(t.text for t in css("svg g.node text"))
    assert "Paris" in captions and "Munich" in captions and "Alice" in captions, captions
    edges = {t.text for t in css("svg g.relationship text")}
    assert {"SUPERSEDES", "ABOUT"} <= edges, edges

    frame = [f for f in css("[data-testid=frame]") if f.find_elements(By.CSS_SELECTOR, "svg g.node")][0]
    SCREENSHOT.parent.mkdir(exist_ok=True)
    frame.screenshot(str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000
    took = time.monotonic() - started
    print(f"Browser: page load to screenshot in {took:.1f} s")
    assert took < BUDGET
