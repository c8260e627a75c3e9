"""The online memory editor: candidate retrieval, Add/Update/Delete/Noop deciders, and the writer.

    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    writer = MemoryWriter(store, make_perception(pcfg), make_decider(ecfg), config=ecfg)
    writer.write_narrations(segments)      # resumable: committed segment ids are skipped
"""
from memora_core.editing.config import EditorConfig, load_editor_config
from memora_core.editing.deciders import Decider, DecisionContext, DeterministicDecider, make_decider
from memora_core.editing.writer import MemoryWriter, WriteSummary

__all__ = ["Decider", "DecisionContext", "DeterministicDecider", "EditorConfig", "MemoryWriter", "WriteSummary",
           "load_editor_config", "make_decider"]
