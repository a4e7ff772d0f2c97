"""The embedded model's server as it sampled before grammar checks were ordered by logit:
llama-cpp-python's own chain, the grammar applied to the whole vocabulary at every token.

    python plain_sampling_server.py <server options>

tests/local_model/test_sampling.py and benchmarks/bench_embedded_limit.py run it beside the
default server: the same requests must give the same completions.
"""

from __future__ import annotations

import sys

from trajguard.local_model.__main__ import serve

if __name__ == "__main__":
    serve(sys.argv[1:], fast_grammar=False)
