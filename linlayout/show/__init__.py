"""Showing layouts to people: text grids and tables (:mod:`.render`), offset formulas
(:mod:`.formula`, sympy for LaTeX), pictures (:mod:`.pictures`, matplotlib, an optional extra)
and the report of a synthesized layout (:mod:`.synthesis`, what ``linlayout synthesize``
prints).

Import the submodule you need; nothing here loads sympy or matplotlib until it is used.
"""
