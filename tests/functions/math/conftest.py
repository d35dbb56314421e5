"""Lets the test modules here import their shared test case (pytest runs in importlib mode)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
