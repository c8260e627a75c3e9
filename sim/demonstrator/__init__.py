"""Human demonstrations as egocentric video: a scripted, kinematic person acts routines from YAML in the
MuJoCo kitchen; each session yields an mp4, a ground-truth event log and a per-frame state trace."""
from sim.demonstrator.config import RenderConfig, RoutineConfig, load_render_config, load_routine
from sim.demonstrator.performer import DemoError, Performer, build_demo_model
from sim.demonstrator.render import render_session, video_id_for
from sim.demonstrator.trace import DemoEvent, DemoMeta, DemoSession, DemoTrace, EventLog, find_sessions

__all__ = ["DemoError", "DemoEvent", "DemoMeta", "DemoSession", "DemoTrace", "EventLog", "Performer",
           "RenderConfig", "RoutineConfig", "build_demo_model", "find_sessions", "load_render_config",
           "load_routine", "render_session", "video_id_for"]
