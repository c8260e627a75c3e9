"""Ingest: turn videos, live frame streams and EPIC narration tables into 10 s segments.

- `segments.plan_segments(duration_s, cfg)`: the segment grid every source shares.
- `video.iter_video_segments(path, participant_id, cfg)`: PyAV decoding, 2 FPS sampling, damage report.
- `video.LiveSegmenter`: the same grid for frames pushed one by one (camera, simulator).
- `narration.load_narrations(csv)` / `narration.group_narrations(...)`: EPIC rows → segments.
- `audio.WhisperTranscriber`: optional per-segment transcript (faster-whisper tiny.en).
"""
