"""Showing layouts to people: text grids (:mod:`.render`), offset formulas (:mod:`.formula`,
sympy for LaTeX) and pictures (:mod:`.pictures`, matplotlib, an optional extra).

Import the submodule you need; nothing here loads sympy or matplotlib until it is used.
"""
