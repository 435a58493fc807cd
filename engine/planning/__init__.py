"""Planning: plan models and the field-first planner, and arguments taken from the request."""
