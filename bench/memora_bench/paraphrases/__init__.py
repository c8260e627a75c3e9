"""Paraphrase suites (YAML, keyed by task id) and plan agreement with the canonical phrasing."""
