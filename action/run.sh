#!/usr/bin/env bash
# The action's check step: annotations in the chosen format, the finding count as an output,
# the findings in the job's summary, drift-check's exit code as the step's. Inputs arrive as INPUT_* environment variables.
set -u
args=("${INPUT_PATH:-.}")
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
fi
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<< "$INPUT_ARGS"  # split on blanks, as a command line would (no globbing)
  args+=("${extra[@]}")
fi
report=$(mktemp)
summary=()
if [ "${INPUT_SUMMARY:-true}" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  summary=(--summary "$GITHUB_STEP_SUMMARY")  # the findings on the job's summary page
fi
drift-check "${args[@]}" --format json --output "$report" -q ${summary[@]+"${summary[@]}"}
format="${INPUT_FORMAT:-github}"
if [ "$format" = sarif ]; then
  # for upload to code scanning: the log goes to a file, the step still fails on findings
  sarif="${INPUT_SARIF_FILE:-drift-check.sarif}"
  drift-check "${args[@]}" --format sarif --output "$sarif"
  code=$?
  echo "sarif-file=$sarif" >> "${GITHUB_OUTPUT:-/dev/null}"
else
  drift-check "${args[@]}" --format "$format"
  code=$?
fi
count=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$report" 2>/dev/null || echo 0)
rm -f "$report"
echo "findings=$count" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
