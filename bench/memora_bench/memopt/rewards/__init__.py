"""The three FIRM reward components, each a plain function: FIRM per token = F x I x R."""
