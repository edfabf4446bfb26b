#!/bin/sh
# The browser make test drives: Debian's chromium and chromium-driver (no browser is ever
# downloaded at run time). Found: nothing to do. Missing and root: installed with apt-get.
# Missing and not root: says exactly what to install and exits 0, so the rest of the suite
# still runs (the Browser test then skips, saying the same). GRAPHMEM_CHROMIUM and
# GRAPHMEM_CHROMEDRIVER name other binaries to look for.
browser="${GRAPHMEM_CHROMIUM:-chromium}"
driver="${GRAPHMEM_CHROMEDRIVER:-chromedriver}"
if command -v "$browser" >/dev/null 2>&1 && command -v "$driver" >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
  exit $?
fi
echo "make test: Chromium is not installed and this user cannot install it (not root)." >&2
echo "  The Browser test (tests/launcher/test_browser.py) will be skipped; every other test runs." >&2
echo "  To run it, install Debian's packages as root:  sudo apt-get install -y chromium chromium-driver" >&2
exit 0
