"""Typed read tools over memory; schemas declared once (registry) and reused by every agent and backend."""
