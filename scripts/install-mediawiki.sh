#!/usr/bin/env bash
# Installs Debian's MediaWiki with PHP's command-line server and SQLite driver, for the MediaWiki
# test bed (npm run testbed -- mediawiki). The package pulls apache2 in; no service may be left
# running or listening, so a policy-rc.d forbids service starts during the install and apache2 is
# stopped and disabled if it started anyway. Never fails: prints what to do instead.
set -u
need=""
[ -f /usr/share/mediawiki/maintenance/install.php ] || need="mediawiki"
command -v php >/dev/null 2>&1 || need="$need php-cli"
if command -v php >/dev/null 2>&1; then
  php -m 2>/dev/null | grep -qi '^pdo_sqlite$' || need="$need php-sqlite3"
else
  need="$need php-sqlite3"
fi
[ -z "$need" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "[install] installing Debian packages for the MediaWiki test bed:$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  policy=/usr/sbin/policy-rc.d
  own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && own_policy=1
  fi
  ok=0
  apt-get update -qq >/dev/null \
    && apt-get install -y -qq --no-install-recommends $need >/dev/null && ok=1
  [ "$own_policy" = 1 ] && rm -f "$policy"
  # apache2 comes with the package; the test bed serves through `php -S` on loopback only.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now apache2 >/dev/null 2>&1 || true; fi
  if command -v update-rc.d >/dev/null 2>&1; then update-rc.d apache2 disable >/dev/null 2>&1 || true; fi
  if [ -x /etc/init.d/apache2 ]; then /etc/init.d/apache2 stop >/dev/null 2>&1 || true; fi
  if command -v apache2ctl >/dev/null 2>&1 && pgrep -x apache2 >/dev/null 2>&1; then
    apache2ctl stop >/dev/null 2>&1 || true
  fi
  [ "$ok" = 1 ] && exit 0
  echo "[install] apt-get failed; the MediaWiki test bed needs: apt-get install --no-install-recommends$need" >&2
  exit 0
fi
echo "[install] the MediaWiki test bed (optional) needs:$need. Install them with your package manager" >&2
echo "          (e.g. 'sudo apt-get install --no-install-recommends mediawiki php-cli php-sqlite3')." >&2
exit 0
