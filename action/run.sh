#!/usr/bin/env bash
# The action's check step: annotations in the chosen format, the finding count as an output,
# drift-check's exit code as the step's. Inputs arrive as INPUT_* environment variables.
set -u
args=("${INPUT_PATH:-.}")
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
fi
report=$(mktemp)
drift-check "${args[@]}" --format json --output "$report" -q
drift-check "${args[@]}" --format "${INPUT_FORMAT:-github}"
code=$?
count=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$report" 2>/dev/null || echo 0)
rm -f "$report"
echo "findings=$count" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
