"""MemOpt (issue 14 part 3): GRPO training of the MemLife writer with the FIRM reward.

data.py (training questions + segments, split by participant), rewards/ (faithfulness, informativeness,
retrievability: plain functions), replay_cache.py (the frozen reader's cached actions), advantages.py (token
advantage shaping), trainer.py (a thin TRL GRPOTrainer subclass), config.py (typed YAML), run.py (the
`memora-bench memopt` driver), report.py (plot + before/after page).
"""
