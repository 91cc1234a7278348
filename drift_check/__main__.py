import sys

from drift_check.cli import main

sys.exit(main())
