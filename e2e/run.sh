#!/usr/bin/env sh
# The browser suite, after vitest in `npm test`. It runs against PostgreSQL only: on TEST_DB=pglite runs the
# same pages are already covered by the PostgreSQL run, and one embedded database cannot be shared with the
# CLI the specs start beside the server. Needs a production build (npm test builds first).
set -eu
if [ "${TEST_DB:-postgres}" = "pglite" ]; then
  echo "e2e: browser suite skipped on TEST_DB=pglite (it runs in the PostgreSQL pass)"
  exit 0
fi
exec npx playwright test -c e2e/playwright.config.ts "$@"
