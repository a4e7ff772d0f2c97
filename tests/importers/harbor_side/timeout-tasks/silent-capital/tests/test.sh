#!/bin/bash
# The reward: 1 when /app/answer.txt names the right answer, else 0.
if grep -qiE '\bparis\b' /app/answer.txt 2>/dev/null; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
