"""A stand-in for the embedded model's server that dies the way a broken llama.cpp build does.

It is the real server (``python -m trajguard.local_model``, the real SmolLM2 on 127.0.0.1),
started through this file, which first makes its native code "crash": the process sends itself
SIGSEGV, and dies of it as a segfaulting build does (exit status -11, no Python cleanup).

    python crashing_server.py MODE MARKER <server options>

MODE says when it dies:
- ``multi-token``: at the first evaluation of more than one token (the AMX kernels' symptom:
  the server starts and answers a one-token health check, then dies on the first real prompt);
- ``request-N``: at its N-th chat request, in every process (so a restarted server dies again);
- ``once-N``: at its N-th chat request, in the first process only (MARKER records that it did).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any


def _die() -> None:
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)


def main() -> None:
    mode, marker, options = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    import llama_cpp

    evaluate, chat = llama_cpp.Llama.eval, llama_cpp.Llama.create_chat_completion
    requests = [0]

    def crashing_eval(self: Any, tokens: Any) -> Any:
        if mode == "multi-token" and len(tokens) > 1:
            _die()
        return evaluate(self, tokens)

    def crashing_chat(self: Any, *args: Any, **kwargs: Any) -> Any:
        requests[0] += 1
        kind, _, count = mode.partition("-")
        at_count = kind in {"request", "once"} and requests[0] == int(count)
        if at_count and (kind == "request" or not marker.exists()):
            marker.write_text(f"died at request {requests[0]}\n")
            _die()
        return chat(self, *args, **kwargs)

    llama_cpp.Llama.eval = crashing_eval  # type: ignore[method-assign]
    llama_cpp.Llama.create_chat_completion = crashing_chat  # type: ignore[method-assign]

    from trajguard.local_model.__main__ import serve

    serve(options)


if __name__ == "__main__":
    main()
