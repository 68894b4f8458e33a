"""Table Companion: the core (rules engines, matches, referee, store, hardware, CLI)."""

__version__ = "0.1.0"
