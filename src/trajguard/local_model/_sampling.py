"""Grammar-constrained sampling that checks the likely tokens, not the whole vocabulary.

Runs in the server process only (:mod:`trajguard.local_model.__main__`). llama-cpp-python
samples through a chain ``penalties → grammar → top-k → typical → top-p → min-p → temp → dist``:
the grammar step matches every one of the 49,152 tokens of SmolLM2's vocabulary against the
grammar at every generated token (about 7 ms a token, 15 % of a nightly's CPU), and top-k then
keeps 40 of them. The same 40 are the 40 highest-logit tokens *the grammar allows*: this sampler
checks the tokens in the order of their logits, a block at a time (256, then 2,048, then all),
until it has found top-k allowed ones, and hands those to the rest of the chain unchanged. The
rest of the chain sees the same candidates as before, draws the same random number and picks
the same token (tests/local_model/test_sampling.py holds it to that: identical completions for
the same seeds); only ties of equal logits at a block's edge could order differently.

Chains of any other shape (no grammar, no top-k, a custom logits processor) are sampled as
llama-cpp-python samples them.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

__all__ = ["FAST_SAMPLES", "install_fast_grammar_sampling"]

FAST_SAMPLES = [0, 0]
"""How many tokens this process sampled through this sampler, and of those how many needed the
whole vocabulary checked (fewer than top-k allowed tokens among the 2,048 likeliest); the
server's counters report both."""

_BLOCKS = (256, 2048)
_AFTER_GRAMMAR = {"top-k", "greedy"}
_TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])


class _Plan:
    """Where the grammar and the top-k (or greedy) steps are in one chain, and how many
    candidates the step after the grammar keeps."""

    def __init__(self, samplers: list[Any], names: list[str], keep: int) -> None:
        self.samplers = samplers
        self.grammar = names.index("grammar")
        self.keep = keep
        self.everything: np.ndarray[Any, Any] | None = None
        """Every token's candidate, reused from token to token (its ids are set once)."""

    def candidates(self, n_vocab: int) -> np.ndarray[Any, Any]:
        if self.everything is None or len(self.everything) != n_vocab:
            self.everything = np.zeros(n_vocab, dtype=_TOKEN_DATA)
            self.everything["id"] = np.arange(n_vocab, dtype=np.int32)
        return self.everything


def _plan_of(llama_cpp: Any, chain: Any, top_k: int) -> _Plan | None:
    count = llama_cpp.llama_sampler_chain_n(chain)
    samplers = [llama_cpp.llama_sampler_chain_get(chain, i) for i in range(count)]
    # llama.cpp marks samplers that cannot run on a backend with a leading "?"
    names = [llama_cpp.llama_sampler_name(s).decode(errors="replace").lstrip("?") for s in samplers]
    if "grammar" not in names:
        return None
    at = names.index("grammar")
    before, after = names[:at], names[at + 1 : at + 2]
    if before != ["penalties"] or not after or after[0] not in _AFTER_GRAMMAR:
        return None  # a custom processor, or a shape this sampler does not know
    keep = 1 if after[0] == "greedy" else top_k
    return _Plan(samplers, names, keep) if keep > 0 else None


def install_fast_grammar_sampling() -> None:
    """Make ``llama_cpp``'s samplers check the grammar on the likely tokens first (in this
    process: the embedded model's server)."""
    import llama_cpp
    from llama_cpp import _internals
    from llama_cpp import llama as llama_module

    if ctypes.sizeof(llama_cpp.llama_token_data) != _TOKEN_DATA.itemsize:
        return  # the C struct changed: keep the library's own sampling

    init_sampler = llama_module.Llama._init_sampler
    sample = _internals.LlamaSampler.sample

    def planned_init(self: Any, *args: Any, **kwargs: Any) -> Any:
        sampler = init_sampler(self, *args, **kwargs)
        top_k = int(kwargs.get("top_k", args[0] if args else 40))
        if kwargs.get("logits_processor") is None and kwargs.get("grammar") is not None:
            sampler._trajguard_plan = _plan_of(llama_cpp, sampler.sampler, top_k)
        return sampler

    def fast_sample(self: Any, ctx: Any, idx: int = -1) -> int:
        plan: _Plan | None = getattr(self, "_trajguard_plan", None)
        if plan is None:
            return int(sample(self, ctx, idx))
        return _sample(llama_cpp, self.sampler, plan, ctx.ctx, idx)

    llama_module.Llama._init_sampler = planned_init  # type: ignore[method-assign]
    _internals.LlamaSampler.sample = fast_sample  # type: ignore[method-assign]


def _candidates(llama_cpp: Any, rows: np.ndarray[Any, Any]) -> Any:
    """A ``llama_token_data_array`` over ``rows`` (a contiguous array of ``_TOKEN_DATA``)."""
    data = rows.ctypes.data_as(ctypes.POINTER(llama_cpp.llama_token_data))
    return llama_cpp.llama_token_data_array(data=data, size=len(rows), selected=-1, sorted=False)


def _sample(llama_cpp: Any, chain: Any, plan: _Plan, ctx: Any, idx: int) -> int:
    vocab = llama_cpp.llama_model_get_vocab(llama_cpp.llama_get_model(ctx))
    n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
    pointer = llama_cpp.llama_get_logits_ith(ctx, idx)
    everything = plan.candidates(n_vocab)
    everything["logit"] = np.ctypeslib.as_array(pointer, shape=(n_vocab,))
    everything["p"] = 0.0
    for step in plan.samplers[: plan.grammar]:  # the penalties, on every token as before
        llama_cpp.llama_sampler_apply(step, ctypes.byref(_candidates(llama_cpp, everything)))
    for block in (*_BLOCKS, n_vocab):
        if block >= n_vocab:
            rows = everything.copy()
        else:
            likely = np.argpartition(everything["logit"], n_vocab - block)[n_vocab - block :]
            rows = np.ascontiguousarray(everything[likely])
        array = _candidates(llama_cpp, rows)
        llama_cpp.llama_sampler_apply(plan.samplers[plan.grammar], ctypes.byref(array))
        allowed = int(np.count_nonzero(rows["logit"][: array.size] > -np.inf))
        if allowed >= plan.keep or block >= n_vocab:
            FAST_SAMPLES[1] += block >= n_vocab
            break
    for step in plan.samplers[plan.grammar + 1 :]:
        llama_cpp.llama_sampler_apply(step, ctypes.byref(array))
    if not 0 <= array.selected < array.size:
        raise RuntimeError("the sampler chain selected no token")
    token = int(array.data[array.selected].id)
    llama_cpp.llama_sampler_accept(chain, token)
    FAST_SAMPLES[0] += 1
    return token
