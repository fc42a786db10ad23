"""Explore, which recorded calls become cases, and the cases they become."""
