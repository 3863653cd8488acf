"""The optional ``plot`` extra (matplotlib): the error every picture function raises without it.

``pip install "linlayout[plot]"`` installs matplotlib. The picture modules import it only
inside their functions; when it is missing they raise :class:`MissingMatplotlib` (an
``ImportError``) whose message is :data:`INSTALL_HINT`. This module imports nothing, so every
picture module can depend on it without depending on another picture module.
"""

from __future__ import annotations

__all__ = ["INSTALL_HINT", "MissingMatplotlib"]

INSTALL_HINT = 'pictures need matplotlib: pip install "linlayout[plot]"'


class MissingMatplotlib(ImportError):
    """matplotlib is not installed; the message says how to install the ``plot`` extra."""
