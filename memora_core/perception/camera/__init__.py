"""`camera` perception backend: memory from pixels (classical segmentation + a small forest trained on
rendered frames + tracking). `camera.backend` registers it; `make_perception` imports it on demand
(this package's __init__ stays empty of imports, so base.py can import camera.config without a cycle)."""
