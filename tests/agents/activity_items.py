"""Invented activity records as the search tools return them: one per verb, each picking up `noun` and then doing the
verb to it, 40 s apart (shared by the answerer tests that need episodes to tie or lean)."""


def pick_then(noun: str, verbs: list[str], video: str) -> list[dict]:
    return [{"activity_id": f"a{i}", "video_id": video, "start_s": 40.0 * i, "end_s": 40.0 * i + 20,
             "summary": "", "actions": [{"verb": "pick-up", "nouns": [noun], "text": f"pick up {noun}",
                                         "start_s": 40.0 * i, "end_s": 40.0 * i + 2},
                                        {"verb": v, "nouns": [noun], "text": f"{v} {noun}",
                                         "start_s": 40.0 * i + 3, "end_s": 40.0 * i + 5}]}
            for i, v in enumerate(verbs)]
