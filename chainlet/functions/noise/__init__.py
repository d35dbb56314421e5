"""Noise functions."""
