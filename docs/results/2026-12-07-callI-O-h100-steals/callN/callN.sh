# Call N: 5c73b50 on the GPU: two more splits not swept before, 64+64 (equal) and 56+56+8.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
source bench/sweep/brief.sh
sweep q2 cuda:0/64+64 static,weighted,ws
sweep q4 cuda:0/56+56+8 static,weighted,ws
