#!/bin/sh
# npm run lint: ESLint (no type information: a few seconds), knip (files nothing reaches, exports
# nobody imports, dependencies nobody uses: knip.json; ~7 s) and Prettier's check (~10 s) side by
# side: the run takes about as long as the longest of the three. Fails if any does.
eslint . &
eslint_pid=$!
knip --no-progress &
knip_pid=$!
prettier --check .
prettier_status=$?
wait "$eslint_pid"
eslint_status=$?
wait "$knip_pid"
knip_status=$?
[ "$eslint_status" -eq 0 ] && [ "$knip_status" -eq 0 ] && [ "$prettier_status" -eq 0 ]
