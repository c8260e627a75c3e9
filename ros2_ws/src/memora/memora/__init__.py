"""memora ROS 2 nodes: each module in memora.nodes is one small rclpy node over memora_core."""
