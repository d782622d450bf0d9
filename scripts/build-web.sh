#!/usr/bin/env bash
# `npm run build:web` (part of `npm run build`): the board page and the console (web/console*) in
# dist/web, served by the API at / and /console (src/page.ts). tsc compiles web/*.ts and the typed
# client to ES modules the browser loads as they are; graphql-ws's browser module is copied beside
# them (index.html maps the bare import).
# Built in a folder of its own, then each file renamed into place: a server reading dist/web
# while another build runs (tests build it side by side) never sees a half-written file.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p dist/web
out=$(mktemp -d dist/.web-XXXXXX)
trap 'rm -rf "$out"' EXIT
node_modules/.bin/tsc -p tsconfig.web.json --outDir "$out"
cp web/index.html web/page.css web/console.html web/console.css "$out/"
mkdir -p "$out/vendor/graphql-ws"
# client.js and the one chunk it imports (its name carries a hash that changes between versions).
cp node_modules/graphql-ws/dist/client.js "$out/vendor/graphql-ws/"
for chunk in $(grep -o "from '\./[^']*\.js'" node_modules/graphql-ws/dist/client.js | sed "s/from '\.\/\(.*\)'/\1/" | sort -u); do
  cp "node_modules/graphql-ws/dist/$chunk" "$out/vendor/graphql-ws/"
done
(cd "$out" && find . -type f) | while read -r f; do
  mkdir -p "dist/web/$(dirname "$f")"
  mv -f "$out/$f" "dist/web/$f"
done
