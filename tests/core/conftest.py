"""Lets the test modules here import ``_reference_backprop`` (pytest runs in importlib mode)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
