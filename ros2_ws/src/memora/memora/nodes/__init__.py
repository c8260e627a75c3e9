"""One module per node; each has `main()` (the console entry point) that calls rclpy.init."""
