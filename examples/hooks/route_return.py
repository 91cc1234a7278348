"""Routes an agent's return to the next step (a Python consumer of completion markers)."""

NEXT_STEP = {
    "## PLANNING COMPLETE": "execute",
    "## PLAN COMPLETE": "review",
}


def route(agent_return: str) -> str | None:
    # A comment that mentions ## PLANNING BLOCKED is not a consumer; only string literals are.
    for marker, step in NEXT_STEP.items():
        if agent_return.startswith(marker):
            return step
    return None
