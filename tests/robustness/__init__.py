"""Robustness: every hostile or malformed input ends quickly in a LayoutError (exit 2 on the
command line), never another exception, a hang or unbounded memory.

* ``test_layout_api_inputs`` — junk in every argument of LinearLayout's public API;
* ``test_cute_inputs`` — junk in every public ``linlayout.cute`` entry point;
* ``test_mlir_inputs`` — hostile MLIR text: alias chains, deep nesting, huge integers;
* ``test_cli_inputs`` — hostile files and options on the command line;
* ``test_fuzzed_parsers``, ``test_fuzzed_api``, ``test_fuzzed_cli`` — the same properties
  searched by hypothesis (``LINLAYOUT_FUZZ_EXAMPLES=5000`` for a longer search), and on valid
  random inputs the closed form equal to the simulator.

Size limits of one module (documented beside the module, e.g. ``MAX_SIMULATION_STEPS``) are
tested with that module.
"""
