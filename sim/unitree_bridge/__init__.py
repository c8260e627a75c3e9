"""Unitree SDK (DDS) bridge: the simulated G1 answers rt/lowcmd with rt/lowstate like the real robot."""
