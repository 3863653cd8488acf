"""Layout conversions planned on every path — registers, warp shuffles, shared memory —
with exact counts, a lower bound per path family and a symbolic check.

* :mod:`.problem` — the validated input (:class:`ConversionProblem`);
* :mod:`.cost` — the weights that price each instruction kind (:data:`DEFAULT_WEIGHTS`);
* :mod:`.shuffle` — register renaming and warp-shuffle plans, the shuffle and select bounds
  (and, on AMD, the packing bound);
* :mod:`.bounds` — the shuffle family's lower bound with its proof
  (:func:`shuffle_family_bound`);
* :mod:`.exchange` — the packed exchange of 8/16-bit elements, two to a word: whole words
  shuffled, halves chosen by lane-dependent byte permutes, on NVIDIA and AMD
  (:func:`plan_packed_exchange`);
* :mod:`.stages` — shuffle plans as select–shuffle–select stages (Triton's construction,
  run-time ``prmt`` byte selection, gfx950 permlane swaps) for any number of transpositions;
* :mod:`.plan` — :func:`plan_conversion`, every path costed and the cheapest chosen;
* :mod:`.triton` — Triton 3.9's own path for the pair, costed the same way
  (:class:`TritonChoice`);
* :mod:`.execute` — the brute-force executor that runs a plan on symbolic registers.
"""

from .bounds import (ShuffleBound, amd_lone_shuffle_bound, amd_two_shuffle_bound,
                     join_cost, lone_shuffle_joins, merge_cost, merge_volume,
                     nvidia_lone_shuffle_bound,
                     shuffle_family_bound, swaps_bring_nothing_lacked, tight_merges,
                     two_shuffles_without_merge)
from .cost import DEFAULT_WEIGHTS, KINDS, resolve_weights
from .exchange import (ExchangeRound, PackedExchangePlan, RegisterSwap, WordPermute,
                       plan_packed_exchange)
from .execute import Execution, execute_plan, execute_shared
from .plan import PATHS, ConversionPlan, PathPlan, plan_conversion
from .problem import ConversionProblem
from .triton import TritonChoice, triton_choice
from .shuffle import (RegisterPlan, ShufflePlan, ShuffleRound, amd_packing_bound,
                      choice_instructions, lacking_elements, plan_registers, plan_shuffles, select_bound,
                      shuffle_bound, source_lanes)
from .stages import StagePlan, plan_stages

__all__ = ["DEFAULT_WEIGHTS", "KINDS", "PATHS", "ConversionPlan", "ConversionProblem",
           "ExchangeRound", "Execution", "PackedExchangePlan", "PathPlan", "RegisterPlan",
           "RegisterSwap", "ShuffleBound",
           "ShufflePlan", "ShuffleRound", "StagePlan",
           "TritonChoice", "WordPermute", "amd_lone_shuffle_bound", "amd_two_shuffle_bound",
           "amd_packing_bound", "choice_instructions", "execute_plan", "execute_shared",
           "join_cost", "lacking_elements", "lone_shuffle_joins", "merge_cost", "merge_volume",
           "nvidia_lone_shuffle_bound",
           "plan_conversion", "plan_packed_exchange",
           "plan_registers", "plan_shuffles", "plan_stages", "resolve_weights",
           "select_bound", "shuffle_bound", "shuffle_family_bound", "source_lanes",
           "swaps_bring_nothing_lacked",
           "tight_merges", "triton_choice", "two_shuffles_without_merge"]
