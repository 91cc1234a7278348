from drift_check.cli import run

run()
