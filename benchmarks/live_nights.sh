#!/usr/bin/env bash
# Usage: bash benchmarks/live_nights.sh [WORKDIR]   (about 20 minutes on 2 cores)
# Six real-model nights of the demo suite into one store: three unedited, then three with the
# weather_bot prompt edited into multiply and greeting; a copied baseline, rolling with --promote-if-clean
set -u
export LITELLM_LOCAL_MODEL_COST_MAP=True
REPO=$(cd "$(dirname "$0")/.." && pwd)
TG=${TRAJGUARD:-trajguard}
W=${1:-/tmp/trajguard-live-nights}
if [ -e "$W" ]; then echo "$W exists: name a new directory" >&2; exit 2; fi
mkdir -p "$W/baselines" && cp -r $REPO/baselines/demo $W/baselines/demo
cd $W
i=0
for which in unedited unedited unedited edited edited edited; do
  i=$((i+1))
  suite=$REPO/suites/demo.yaml
  [ $which = edited ] && suite=$REPO/suites/demo-weather-edit.yaml
  start=$(date +%s)
  $TG nightly $suite --runs 20 --seed $((100+i)) --baseline $W/baselines/demo --reports $W/night$i \
     --store $W/store --promote-if-clean --no-progress > $W/night$i.log 2>&1
  rc=$?
  echo "night $i $which exit $rc $(( $(date +%s) - start )) s" >> $W/summary.txt
done
$TG trend $W/store --suite demo > $W/trend.txt 2>&1; echo "trend exit $?" >> $W/summary.txt
