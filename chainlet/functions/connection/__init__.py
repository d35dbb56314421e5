"""Connection functions."""
