#!/usr/bin/env bash
# npm's postinstall hook: make sure a Chromium exists for the crawler and the tests.
# On Debian/Ubuntu as root it installs Debian's chromium (plus xvfb for headed runs and CJK
# fonts for readable screenshots) and redis-server (the shared frontier of several workers;
# its tests start one on loopback); elsewhere it only says what to do. Never downloads a browser
# build of its own: the crawler runs the system Chromium through executablePath.
set -u
# The MediaWiki test bed (optional, never fails the install): its own script.
# The MediaWiki test bed is for this repository's tests and benchmarks: a clone (it has test/)
# installs it, an installed package does not.
if [ -d "$(dirname "$0")/../test" ]; then bash "$(dirname "$0")/install-mediawiki.sh" || true; fi
need=""
if ! { [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; }; then
  command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need="chromium"
fi
command -v xvfb-run >/dev/null 2>&1 || need="$need xvfb"
[ -d /usr/share/fonts/opentype/noto ] || need="$need fonts-noto-cjk"
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || need="$need redis-server"
[ -z "$need" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "[install] installing Debian packages:$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $need >/dev/null \
    && exit 0
  echo "[install] apt-get failed; install them by hand: apt-get install$need" >&2
  exit 0
fi
echo "[install] missing:$need. Install them with your package manager (e.g. 'sudo apt-get install chromium redis-server'," >&2
echo "          'brew install --cask chromium'), or point CHROMIUM_PATH at a Chrome/Chromium executable." >&2
exit 0
