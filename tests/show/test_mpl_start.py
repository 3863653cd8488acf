"""import_for_drawing: matplotlib's drawing modules imported with kwdoc stubbed, then restored.

Each check runs in a fresh interpreter: the test process has imported matplotlib already, and
the function patches nothing then (the last test)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("matplotlib")


def _run(code: str) -> str:
    """stdout of ``code`` in a fresh interpreter (fails the test on a non-zero exit)."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_imports_the_drawing_modules_and_puts_kwdoc_back():
    out = _run("""
        import sys
        from linlayout.show.mpl_start import SKIPPED_DOC, import_for_drawing
        import_for_drawing(svg=True)
        import matplotlib.artist as artist
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle
        assert {"matplotlib.figure", "matplotlib.backends.backend_agg",
                "matplotlib.backends.backend_svg"} <= set(sys.modules)
        assert artist.kwdoc.__module__ == "matplotlib.artist"  # restored
        assert SKIPPED_DOC in Line2D.set.__doc__  # defined during the import
        assert "linewidth" in artist.kwdoc(Line2D)  # every call afterwards: the full list
        class Later(Rectangle):  # defined afterwards: documented as usual
            pass
        assert SKIPPED_DOC not in Later.set.__doc__ and "linewidth" in Later.set.__doc__
        print("ok")
    """)
    assert out.strip() == "ok"


def test_pictures_drawn_after_it_are_the_same(tmp_path):
    """The same PNG bytes with and without the shortcut: only docstrings differ."""
    code = """
        import sys
        {first}
        from linlayout import cute
        from linlayout.show.tv_pictures import draw_tv
        from linlayout.show.pictures import save
        save(draw_tv(cute.atom("sm80_16x8x16.C")), sys.argv[1])
    """
    paths = []
    for name, first in (("plain", "import matplotlib.figure"),
                        ("fast", "from linlayout.show.mpl_start import import_for_drawing; "
                                 "import_for_drawing()")):
        path = tmp_path / f"{name}.png"
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(code.format(first=first)),
                              str(path)], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_without_matplotlib_it_says_what_to_install():
    out = _run("""
        import sys
        sys.modules["matplotlib"] = None  # import matplotlib -> ImportError
        from linlayout.show.mpl_start import import_for_drawing
        from linlayout.show.plot_extra import INSTALL_HINT, MissingMatplotlib
        try:
            import_for_drawing()
        except MissingMatplotlib as exc:
            assert str(exc) == INSTALL_HINT
            print("ok")
    """)
    assert out.strip() == "ok"


def test_matplotlib_already_imported_nothing_is_patched(monkeypatch):
    import matplotlib.artist as artist
    import matplotlib.figure  # noqa: F401

    from linlayout.show.mpl_start import import_for_drawing

    calls = []
    monkeypatch.setattr(artist, "kwdoc", lambda a: calls.append(a) or "")
    import_for_drawing()
    assert artist.kwdoc is not None and calls == []
    assert artist.kwdoc.__name__ == "<lambda>"  # left as it was

