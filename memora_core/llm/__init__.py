"""LLM backends behind one interface (`LLMBackend.chat`) and defensive parsing of what models say."""
from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, ToolCall, load_llm_config, make_llm

__all__ = ["LLMBackend", "LLMConfig", "LLMReply", "ToolCall", "load_llm_config", "make_llm"]
