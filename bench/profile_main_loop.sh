#!/usr/bin/env bash
# Where the time goes in Ampere step 5 on this GPU: the tuned winners at 4096^3 and 8192^3 against
# cuBLAS (a plain run of `bench_gemm --ampere`), their main loops from their SASS
# (bench/main_loop_sass.py), and one launch of each under Nsight Compute for tensor-pipe activity
# and instructions executed per HMMA. The profiled run reads the first run's tuning results, so it
# profiles the same winners; its own timings are the profiler's and are not reported.
# usage: bench/profile_main_loop.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, main-loop-profile)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
out=${2:-main-loop-profile}
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$build/bench/bench_gemm" --ampere --cache "$out/cache" --cubins "$out" | tee "$out/bench_gemm.txt"
python3 "$here/main_loop_sass.py" "$out"/*.cubin | tee "$out/sass.txt"
metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum
ncu --profile-from-start off --metrics "$metrics" --csv --log-file "$out/ncu.csv" \
  "$build/bench/bench_gemm" --ampere --cache "$out/cache" --profile > "$out/profiled_run.txt"
python3 - "$out/ncu.csv" <<'SUMMARY' | tee "$out/ncu.txt"
import collections, csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
header, rows = rows[0], rows[1:]
col = {name: header.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
launches = collections.defaultdict(dict)
for r in rows:
    value = r[col["Metric Value"]].replace(",", "")
    launches[(r[col["ID"]], r[col["Kernel Name"]])][r[col["Metric Name"]]] = float(value)
print("Nsight Compute, one launch of each tuned winner (in the order of bench_gemm's table):")
for (launch, kernel), m in launches.items():
    active = m.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", float("nan"))
    hmma = m.get("smsp__inst_executed_pipe_tensor_op_hmma.sum", 0)
    per = m.get("smsp__inst_executed.sum", 0) / hmma if hmma else float("nan")
    print(f"  launch {launch} {kernel}: tensor pipe active {active:.1f}%, {per:.2f} instructions executed per HMMA")
SUMMARY
