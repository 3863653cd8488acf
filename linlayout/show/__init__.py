"""Showing layouts to people: text grids and tables (:mod:`.render`), offset formulas
(:mod:`.formula`, sympy for LaTeX), pictures (:mod:`.pictures`, matplotlib, an optional extra;
on the cell canvas of :mod:`.cells`: CUTLASS-style thread/value grids :mod:`.tv_pictures`, the
MMA panel :mod:`.mma_picture`, the copy picture by wavefront :mod:`.copy_picture`) and the
reports the commands print: a synthesized layout (:mod:`.synthesis`, ``linlayout
synthesize``), one access's bank conflicts against a limit (:mod:`.conflicts`, ``linlayout
conflicts``) and a PTX/TMA swizzle mode (:mod:`.ptx`, ``linlayout ptx``).

Import the submodule you need; nothing here loads sympy or matplotlib until it is used.
"""
