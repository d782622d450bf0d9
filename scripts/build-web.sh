#!/usr/bin/env bash
# `npm run build:web` (part of `npm run build`): the board page in dist/web, served by the API at /
# (src/page.ts). tsc compiles web/page.ts and the typed client to ES modules the browser loads as
# they are; graphql-ws's browser module is copied beside them (index.html maps the bare import).
set -euo pipefail
cd "$(dirname "$0")/.."

node_modules/.bin/tsc -p tsconfig.web.json
cp web/index.html web/page.css dist/web/
mkdir -p dist/web/vendor/graphql-ws
# client.js and the one chunk it imports (its name carries a hash that changes between versions).
cp node_modules/graphql-ws/dist/client.js dist/web/vendor/graphql-ws/
for chunk in $(grep -o "from '\./[^']*\.js'" node_modules/graphql-ws/dist/client.js | sed "s/from '\.\/\(.*\)'/\1/" | sort -u); do
  cp "node_modules/graphql-ws/dist/$chunk" dist/web/vendor/graphql-ws/
done
