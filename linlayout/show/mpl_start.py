"""Import matplotlib for a command that draws one picture and exits, skipping its property docs.

Importing matplotlib's ``Figure`` and Agg canvas takes most of the time of ``linlayout show
--png``; about a quarter of that import is documentation. As each matplotlib ``Artist`` class
is defined, ``Artist.__init_subclass__`` writes the docstring of its ``set()`` method, listing
every property with ``matplotlib.artist.kwdoc`` (which reads and parses the docstring of every
setter), and docstrings holding ``%(Class:kwdoc)s`` substitute the same lists. A process that
draws a picture and exits never reads them. :func:`import_for_drawing` imports the drawing
modules while ``kwdoc`` returns a one-line note instead, then puts ``kwdoc`` back, so classes
defined later (and every call afterwards) are documented as usual; only the docstrings made
during that import (the ``set()`` methods of its classes, and the property lists substituted
into its functions' docstrings) read the note. Nothing else changes: the same classes,
signatures and drawing code (a test compares the PNG bytes drawn either way).

Only the CLI calls it (a fresh process per command); library functions import matplotlib
plainly, so a Python session keeps matplotlib's full docstrings. Once matplotlib's ``Figure``
is imported, the call imports nothing new and patches nothing.

Source: matplotlib's ``matplotlib.artist.kwdoc`` and ``Artist.__init_subclass__``
(``lib/matplotlib/artist.py``), and the ``%(...:kwdoc)s`` substitutions of
``lib/matplotlib/_docstring.py``.
"""

from __future__ import annotations

import sys

from .._checks import instance_of
from .plot_extra import INSTALL_HINT, MissingMatplotlib

__all__ = ["SKIPPED_DOC", "import_for_drawing"]

#: What the ``set()`` docstrings of the classes defined during :func:`import_for_drawing`
#: read instead of their property list.
SKIPPED_DOC = "(property list not built: imported by linlayout for one picture)"


def _skipped_kwdoc(artist: object) -> str:
    """Stands in for ``matplotlib.artist.kwdoc`` during the import."""
    return SKIPPED_DOC


def import_for_drawing(svg: bool = False) -> None:
    """Import ``matplotlib.figure`` and the Agg canvas (and the SVG backend when ``svg``),
    without building the property lists of matplotlib's docstrings (module docstring).

    Args:
        svg: also import ``matplotlib.backends.backend_svg`` (a bool).

    Raises:
        LayoutError: ``svg`` is not a bool.
        MissingMatplotlib: matplotlib is not installed (the message says how to install it);
            ``matplotlib.artist.kwdoc`` is restored whatever the import raised.
    """
    instance_of(svg, bool, "svg")
    try:
        if "matplotlib.figure" not in sys.modules:
            import matplotlib.artist as artist

            kwdoc = getattr(artist, "kwdoc", None)
            if kwdoc is not None:  # a matplotlib without it is imported plainly
                artist.kwdoc = _skipped_kwdoc
            try:
                import matplotlib.figure  # noqa: F401 - the import is the point
                import matplotlib.backends.backend_agg  # noqa: F401
            finally:
                if kwdoc is not None:
                    artist.kwdoc = kwdoc
        import matplotlib.backends.backend_agg  # noqa: F401,F811
        if svg:
            import matplotlib.backends.backend_svg  # noqa: F401
    except ImportError as exc:
        raise MissingMatplotlib(INSTALL_HINT) from exc
