"""Vision's exceptions: one root, one branch per job, messages a player can act on.

Catch `VisionError` to handle anything vision raises; the service catches `SourceError`
to reconnect a camera and `CalibrationError` to ask the players to fix the view.
"""

from __future__ import annotations


class VisionError(Exception):
    """Root of every error raised by the vision package."""


class SourceError(VisionError):
    """A frame source cannot open or deliver frames (missing file, busy or unplugged camera)."""


class SourceEnded(SourceError):
    """A replay source (directory or video without looping) has no more frames."""


class CalibrationError(VisionError):
    """The board or play area cannot be located, or a calibration file is invalid."""


class LayoutError(VisionError):
    """A board layout data file is invalid (the message names the file and the entry)."""


class ModelError(VisionError):
    """A model file is missing, cannot be loaded, or does not match its description."""


class RecognitionError(VisionError):
    """An image cannot be read as a table (unreadable file, wrong kind of image)."""
