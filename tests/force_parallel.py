"""A pytest plugin that puts every parallel stage on, on any tree: `python -m pytest -p
tests.force_parallel` runs the suite with forked workers scanning even a two-file tree, the
rules in units on two processes, the vocabularies in a forked copy and the tree walked by
both processes. Every test should
pass as it does without it (the output is the same); a stage whose workers fail is silent
otherwise. Not part of the default run: it doubles the suite's time."""

import os

os.environ["DRIFT_CHECK_JOBS"] = "2"

import drift_check.scanners as scanners
import drift_check.scanners.files as files
from drift_check import engine, parallel

engine.LEAST_SOURCES_FOR_PARTS = 1
scanners.LEAST_FILES_FOR_BACKGROUND = 1
parallel.LEAST_PER_PART = 1
parallel.LEAST_PER_LIGHT_PART = 1
files.LEAST_FOLDERS_TO_SHARE = 1
