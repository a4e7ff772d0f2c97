"""The statistics of live mode: pure functions over counts and arrays, no I/O.

* exact tests for rates (Boschloo, Fisher) and their cached p-value tables;
* intervals (Wilson, Newcombe, pass^k) and equivalence bounds (TOST);
* multiplicity (Holm, Benjamini-Hochberg);
* run-level permutation tests and the closed-form location tests (Welch, Brunner-Munzel);
* power, minimum detectable effects and runs needed;
* alpha spending for sequential looks (O'Brien-Fleming, exact thresholds for rates).

The method, and how these pieces make a verdict, is described in ``docs/statistics.md``.
"""

from trajguard.stats._distributions import norm_ppf, t_cdf, t_ppf, t_sf
from trajguard.stats._equivalence import (
    constant_bound,
    constant_median_tost,
    constant_shift_tost,
    tost_rates,
)
from trajguard.stats._intervals import (
    newcombe_interval,
    pass_hat_k,
    pass_k_interval,
    wilson_interval,
)
from trajguard.stats._location import LocationTest, brunner_munzel, prob_superiority, welch
from trajguard.stats._multiplicity import bh, holm
from trajguard.stats._permutation import (
    Arrangements,
    PermutationResult,
    Statistic,
    bm_statistic,
    distance_statistic,
    g_statistic,
    permutation_test,
    welch_statistic,
)
from trajguard.stats._power import (
    EXACT_MAX_N,
    cv_to_sigma,
    mde_crash_rate,
    mde_pass_rate,
    mde_ratio,
    mde_steps,
    n_needed_pass_rate,
    n_needed_ratio,
    n_needed_steps,
    power_rates,
    power_ratio,
)
from trajguard.stats._rates import (
    MAX_EXACT_TABLES,
    Alternative,
    binom_pmf,
    boschloo_feasible,
    boschloo_min_pvalue,
    boschloo_pvalue,
    boschloo_pvalues,
    fisher_min_pvalue,
    fisher_pvalue,
)
from trajguard.stats._spending import (
    Action,
    combine,
    obf_thresholds,
    rate_can_still_regress,
    rate_stopping,
    rate_thresholds,
    sequential_decision,
)

__all__ = [
    "EXACT_MAX_N",
    "MAX_EXACT_TABLES",
    "Action",
    "Alternative",
    "Arrangements",
    "LocationTest",
    "PermutationResult",
    "Statistic",
    "bh",
    "binom_pmf",
    "bm_statistic",
    "boschloo_feasible",
    "boschloo_min_pvalue",
    "boschloo_pvalue",
    "boschloo_pvalues",
    "brunner_munzel",
    "combine",
    "constant_bound",
    "constant_median_tost",
    "constant_shift_tost",
    "cv_to_sigma",
    "distance_statistic",
    "fisher_min_pvalue",
    "fisher_pvalue",
    "g_statistic",
    "holm",
    "mde_crash_rate",
    "mde_pass_rate",
    "mde_ratio",
    "mde_steps",
    "n_needed_pass_rate",
    "n_needed_ratio",
    "n_needed_steps",
    "newcombe_interval",
    "norm_ppf",
    "obf_thresholds",
    "pass_hat_k",
    "pass_k_interval",
    "permutation_test",
    "power_rates",
    "power_ratio",
    "prob_superiority",
    "rate_can_still_regress",
    "rate_stopping",
    "rate_thresholds",
    "sequential_decision",
    "t_cdf",
    "t_ppf",
    "t_sf",
    "tost_rates",
    "welch",
    "welch_statistic",
    "wilson_interval",
]
