"""The `reference` metric family: MEMORA-Bench scored by the rules of the reference code
(yuzihaowashu/MEMORA @ 9c80048, MIT), re-implemented from those rules. It is the headline of results.json;
our stricter variants (memora_bench.metrics.planning / eamqa) sit beside it as `strict`.

lexicon       tokens, stems, Jaccard, a step's action verb
step_checks   executable-by-text checks, Exec
order_exec    OrderExec (greedy ordered prefix)
key_objects   KeyObj (Replay: best-Jaccard procedure; Generalize: ground-truth stems in memory's nouns)
preferences   PrefAdh
planning      per-task scores and the RGP aggregation
memory_view   what the rules read from the participant's full memory
eamqa         answer-letter parsing, accuracy per type with controls, the filtered subset
"""
