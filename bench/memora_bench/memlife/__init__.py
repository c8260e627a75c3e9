"""MemLife: question-independent memory writer and agentic reader (issue 14)."""
