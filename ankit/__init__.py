"""ankit: a terminal chat assistant on the Python standard library alone."""

__version__ = "0.1.0"
