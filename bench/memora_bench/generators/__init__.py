"""Construction pipelines for users who bring a new corpus: EAM-QA items and Planning tasks."""
