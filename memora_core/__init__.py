"""memora core: egocentric experience → editable typed memory → plans. Pure Python, never imports ROS."""
__version__ = "0.1.0"
