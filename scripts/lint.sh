#!/bin/sh
# npm run lint: ESLint (no type information: a few seconds) and Prettier's check (~10 s) side by
# side: the run takes about as long as the longer of the two. Fails if either does.
eslint . &
eslint_pid=$!
prettier --check .
prettier_status=$?
wait "$eslint_pid"
eslint_status=$?
[ "$eslint_status" -eq 0 ] && [ "$prettier_status" -eq 0 ]
