"""Reading a spoken or typed instruction into typed tasks for the planners (spaCy, the EPIC taxonomy)."""
from memora_core.agents.instruction.nlp import NlpUnavailable
from memora_core.agents.instruction.parser import InstructionParser
from memora_core.agents.instruction.types import ParsedInstruction, Task

__all__ = ["InstructionParser", "NlpUnavailable", "ParsedInstruction", "Task"]
