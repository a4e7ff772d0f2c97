#!/bin/bash
# A broken verifier: it checks the answer but never writes /logs/verifier/reward.txt.
grep -qi paris /app/answer.txt
