"""SonettoHere Desktop: a desktop companion that remembers the person she talks to."""

__version__ = "0.1.0"
