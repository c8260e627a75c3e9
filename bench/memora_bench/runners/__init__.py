"""Benchmark runners: memory formation per participant, EAM-QA and Planning across the seven conditions."""
