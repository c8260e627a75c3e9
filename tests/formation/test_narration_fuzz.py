"""Property: whatever bytes a narration CSV holds, `load_narrations` either returns rows every later step
accepts (segment grid, perception schemas) or raises NarrationFormatError - never another exception, and
never slowly (the deadline bounds each example's time, which also bounds what it can allocate)."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memora_core.config import SegmentingConfig
from memora_core.ingest.narration import (
    MAX_FIELD_CHARS,
    MAX_TIMESTAMP_S,
    REQUIRED_COLUMNS,
    NarrationFormatError,
    group_narrations,
    load_narrations,
    readable_noun,
)
from memora_core.schemas import ActionObservation, ObjectObservation

GOOD = {"narration_id": "P06_101_0", "participant_id": "P06", "video_id": "P06_101", "start_timestamp": "00:00:02.20",
        "stop_timestamp": "00:00:03.95", "narration": "open fridge", "verb": "open", "verb_class": "3",
        "noun": "fridge", "noun_class": "12", "all_nouns": "['fridge']", "all_noun_classes": "[12]"}

nasty = st.sampled_from([
    "", " ", "nan", "inf", "-inf", "1e999", "-1", "00:00:nan", "00:00:inf", "99999999:00:00.00", "-00:00:01.00",
    "00:00:01.00", "23:59:59.99", "24:00:00.01", "00:60:00.00", "[]", "['']", "['a', 'b']", "[1, 2]", "[True]",
    "[[[[[[[[[[]]]]]]]]]]", "[" * 300 + "]" * 300, "{'a': 1}", "(1,)", "['x'] * 9", "__import__('os')",
    "\x00", '"', '""', "a\nb", "\r", "P06", "P 06", "x" * (MAX_FIELD_CHARS + 1), "9" * 5000, "[" + "1," * 100 + "]",
])
field = st.one_of(nasty, st.text(max_size=20))


def _stamp(seconds: float) -> str:
    return f"{int(seconds // 3600):02d}:{int(seconds % 3600 // 60):02d}:{seconds % 60:05.2f}"


@st.composite
def good_row(draw) -> dict[str, str]:
    """A row the loader must accept (unless it falls past a short video's end)."""
    start = draw(st.floats(0.0, 1800.0))
    nouns = draw(st.lists(st.sampled_from(["fridge", "potato:sweet", "board:chopping", "tap"]), max_size=3))
    return {**GOOD, "video_id": draw(st.sampled_from(["P06_101", "P06_102"])), "start_timestamp": _stamp(start),
            "stop_timestamp": _stamp(start + draw(st.floats(0.0, 20.0))), "all_nouns": repr(nouns),
            "all_noun_classes": repr([draw(st.integers(0, 300)) for _ in nouns]),
            "verb": draw(st.sampled_from(["open", "pick-up", "put-down"]))}


@st.composite
def csv_bytes(draw) -> bytes:
    columns = list(REQUIRED_COLUMNS)
    if draw(st.booleans()):
        columns = draw(st.permutations(columns + ["narration_timestamp"]))
    if draw(st.integers(0, 9)) == 0:
        columns = columns[: draw(st.integers(0, len(columns)))]  # sometimes columns go missing
    sep = ";" if draw(st.integers(0, 9)) == 0 else ","
    lines = [sep.join(columns)]
    for _ in range(draw(st.integers(0, 5))):
        rec = draw(good_row())
        if columns and draw(st.integers(0, 3)) == 0:  # a few rows get a bad or odd value
            for c in draw(st.lists(st.sampled_from(columns), max_size=2)):
                rec[c] = draw(field)
        row = []
        for c in columns:
            value = rec.get(c, "x")
            if '"' in value or sep in value or "\n" in value or "\r" in value:
                value = '"' + value.replace('"', '""') + '"' if draw(st.integers(0, 9)) else value
            row.append(value)
        if draw(st.integers(0, 9)) == 0:
            row = row[: draw(st.integers(0, len(row)))] + draw(st.lists(field, max_size=2))  # ragged
        lines.append(sep.join(row))
    data = "\n".join(lines).encode("utf-8", errors="surrogatepass")
    if draw(st.integers(0, 19)) == 0:
        data += draw(st.binary(max_size=40))  # not UTF-8 at all
    return data


@settings(max_examples=200, deadline=2000, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=csv_bytes(), participant=st.sampled_from([None, "P06"]),
       durations=st.sampled_from([None, {"P06_101": 1859.1}, {"P06_101": 1859.1}, {"P06_101": 1.0}]))
def test_loader_returns_valid_rows_or_its_typed_error(data, participant, durations):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "narrations.csv"
        path.write_bytes(data)
        try:
            rows = load_narrations(path, participant, durations=durations)
        except NarrationFormatError as exc:
            event("refused")
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)
            return
    event("loaded no rows" if not rows else "loaded rows")
    for r in rows:
        assert math.isfinite(r.start_s) and 0.0 <= r.start_s <= r.stop_s <= MAX_TIMESTAMP_S
        assert r.verb and r.narration and r.video_id and r.narration_id
        assert participant is None or r.participant_id == participant
        assert len(r.all_nouns) == len(r.all_noun_classes)
        # what perception will build from the row validates (the schemas are the later gate)
        ActionObservation(verb=r.verb, nouns=[readable_noun(n) for n in r.all_nouns], start_s=r.start_s,
                          end_s=r.stop_s, text=r.narration, source_id=r.narration_id)
        for n in r.all_nouns:
            ObjectObservation(name=readable_noun(n))
    segments = group_narrations(rows, SegmentingConfig(), durations)
    assert len(segments) <= len(rows)
    assert sum(len(s.rows) for s in segments) == len(rows)


def test_the_real_epic_tables_load(shared_data):
    from memora_core.ingest.narration import load_video_durations

    durations = load_video_durations(shared_data / "epic100" / "EPIC_100_video_info.csv")
    for name in ("EPIC_100_extension_narrations_P06_P28.csv", "EPIC_100_validation.csv"):
        rows = load_narrations(shared_data / "epic100" / name, durations=durations)
        assert len(rows) > 2000
