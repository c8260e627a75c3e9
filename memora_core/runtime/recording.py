"""Reading a run's MCAP recording back (rosbags; no ROS installation needed): messages per topic, and the
simulator's ground truth (std_msgs/String JSON) for checking where objects ended up."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def topic_counts(bag_dir: Path) -> dict[str, int]:
    """Messages per topic in a rosbag2 directory, counted by reading every message record."""
    from rosbags.rosbag2 import Reader

    counts: dict[str, int] = {}
    with Reader(Path(bag_dir)) as reader:
        for conn in reader.connections:
            counts.setdefault(conn.topic, 0)
        for conn, _t, _raw in reader.messages():
            counts[conn.topic] += 1
    return dict(sorted(counts.items()))


def string_messages(bag_dir: Path, topic: str) -> list[Any]:
    """The JSON payloads of a std_msgs/String topic, in recording order."""
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.LATEST)
    out = []
    with Reader(Path(bag_dir)) as reader:
        conns = [c for c in reader.connections if c.topic == topic]
        for conn, _t, raw in reader.messages(connections=conns):
            out.append(json.loads(store.deserialize_cdr(raw, conn.msgtype).data))
    return out
