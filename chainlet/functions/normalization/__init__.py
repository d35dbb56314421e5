"""Normalization functions."""
