# Call F2, on the machine call F left warm: the third split (88+24+8: an H100 partitions at most
# 120 of its 132 SMs, so call F's 96+24+8 was refused) and the CPU beside the GPU.
set -uo pipefail; source scripts/device-env.sh; export TESTS=0; source bench/gpu_build.sh >/dev/null; source bench/sweep/brief.sh
sweep p3 cuda:0/88+24+8 static,weighted,ws; sweep mix cpu,cuda:0 weighted,ws
