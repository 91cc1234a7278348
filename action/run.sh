#!/usr/bin/env bash
# The action's check step: one run of drift-check that prints the chosen format (or writes
# the SARIF log) and writes its JSON report beside it, the finding count taken from that
# report as an output, the findings in the job's summary, drift-check's exit code as the
# step's. Inputs arrive as INPUT_* environment variables; DRIFT_CHECK_BIN is the folder of the action's own environment.
set -u
bin="${DRIFT_CHECK_BIN:-}"
exe=drift-check
python=python3
if [ -n "$bin" ]; then
  exe="$bin/drift-check"
  python="$bin/python"
fi
args=("${INPUT_PATH:-.}")
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
fi
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<< "$INPUT_ARGS"  # split on blanks, as a command line would (no globbing)
  args+=("${extra[@]}")
fi
report=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/drift-check-report.XXXXXX")
if [ "${INPUT_SUMMARY:-true}" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--summary "$GITHUB_STEP_SUMMARY")  # the findings on the job's summary page
fi
format="${INPUT_FORMAT:-github}"
if [ "$format" = sarif ]; then
  # for upload to code scanning: the log goes to a file, the step still fails on findings
  sarif="${INPUT_SARIF_FILE:-drift-check.sarif}"
  "$exe" "${args[@]}" --format sarif --output "$sarif" --json-report "$report"
  code=$?
  echo "sarif-file=$sarif" >> "${GITHUB_OUTPUT:-/dev/null}"
else
  "$exe" "${args[@]}" --format "$format" --json-report "$report"
  code=$?
fi
# no count when drift-check stopped with an error (exit 2) before writing its report
if count=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$report" 2>/dev/null); then
  echo "findings=$count" >> "${GITHUB_OUTPUT:-/dev/null}"
fi
rm -f "$report"
exit "$code"
