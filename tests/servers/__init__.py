"""Real HTTP servers on loopback for the execution tests (started and stopped by tests)."""
