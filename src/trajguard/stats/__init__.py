"""The statistics of live mode: pure functions over counts and arrays, no I/O.

* exact tests for rates (Boschloo, Fisher) and their cached p-value tables;
* intervals (Wilson, Newcombe, pass^k) and equivalence bounds (TOST);
* multiplicity (Holm, Benjamini-Hochberg, combined tests and step-down min-p over the joint
  permutation distribution);
* stratified tests (CMH over scenarios) and the homogeneity of batches (baseline history);
* run-level permutation tests and the closed-form location tests (Welch, Brunner-Munzel);
* power, minimum detectable effects and runs needed;
* alpha spending for sequential looks (O'Brien-Fleming, exact thresholds for rates).

The method, and how these pieces make a verdict, is described in ``docs/explanation/statistics.md``.
"""

from typing import TYPE_CHECKING

from trajguard._lazy import lazy_face

if TYPE_CHECKING:
    from trajguard.stats._distributions import norm_ppf, t_cdf, t_ppf, t_sf
    from trajguard.stats._equivalence import (
        constant_bound,
        constant_median_tost,
        constant_shift_tost,
        tost_rates,
    )
    from trajguard.stats._family import (
        NullLaw,
        critical_value,
        fisher_combination,
        rank_pvalues,
        stepdown_independent,
        two_sided_rank_pvalues,
        westfall_young,
    )
    from trajguard.stats._floor_bounds import (
        MAX_RUNS_TO_SHOW,
        POWER_TO_SHOW,
        lower_rate_bound,
        runs_to_show_rate_at_least,
        upper_rate_bound,
    )
    from trajguard.stats._intervals import (
        jeffreys_interval,
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
        all_arrangements,
        bm_statistic,
        distance_statistic,
        g_statistic,
        observed_arrangement,
        permutation_test,
        tvd_statistic,
        welch_statistic,
    )
    from trajguard.stats._plausible import PLAUSIBLE, LeastPower, least_power_pass_rate
    from trajguard.stats._power import (
        EXACT_MAX_N,
        approx_n_pass_rate,
        cv_to_sigma,
        gate_power,
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
    from trajguard.stats._shares import largest_rise, rise_statistic
    from trajguard.stats._spending import (
        Action,
        combine,
        obf_thresholds,
        rate_can_still_regress,
        rate_stopping,
        rate_thresholds,
        sequential_decision,
    )
    from trajguard.stats._stratified import (
        Homogeneity,
        cmh_scores,
        homogeneity_test,
        rate_homogeneity_test,
    )

__all__ = [
    "EXACT_MAX_N",
    "MAX_EXACT_TABLES",
    "MAX_RUNS_TO_SHOW",
    "PLAUSIBLE",
    "POWER_TO_SHOW",
    "Action",
    "Alternative",
    "Arrangements",
    "Homogeneity",
    "LeastPower",
    "LocationTest",
    "NullLaw",
    "PermutationResult",
    "Statistic",
    "all_arrangements",
    "approx_n_pass_rate",
    "bh",
    "binom_pmf",
    "bm_statistic",
    "boschloo_feasible",
    "boschloo_min_pvalue",
    "boschloo_pvalue",
    "boschloo_pvalues",
    "brunner_munzel",
    "cmh_scores",
    "combine",
    "constant_bound",
    "constant_median_tost",
    "constant_shift_tost",
    "critical_value",
    "cv_to_sigma",
    "distance_statistic",
    "fisher_combination",
    "fisher_min_pvalue",
    "fisher_pvalue",
    "g_statistic",
    "gate_power",
    "holm",
    "homogeneity_test",
    "jeffreys_interval",
    "largest_rise",
    "least_power_pass_rate",
    "lower_rate_bound",
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
    "observed_arrangement",
    "pass_hat_k",
    "pass_k_interval",
    "permutation_test",
    "power_rates",
    "power_ratio",
    "prob_superiority",
    "rank_pvalues",
    "rate_can_still_regress",
    "rate_homogeneity_test",
    "rate_stopping",
    "rate_thresholds",
    "rise_statistic",
    "runs_to_show_rate_at_least",
    "sequential_decision",
    "stepdown_independent",
    "t_cdf",
    "t_ppf",
    "t_sf",
    "tost_rates",
    "tvd_statistic",
    "two_sided_rank_pvalues",
    "upper_rate_bound",
    "welch",
    "welch_statistic",
    "westfall_young",
    "wilson_interval",
]

__getattr__ = lazy_face(__name__)
