"""Explore, the offline explorer: its inputs, from where behaviour lives and from types."""
