"""Evaluation functions."""
