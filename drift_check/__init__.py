"""drift-check: a static contract-drift linter for repositories of AI-agent prompts."""

__version__ = "0.1.0"
