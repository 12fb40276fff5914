# CPU burners that keep every core busy, for the runs that must hold on a loaded machine
# (scripts/demo-under-load, scripts/flake-hunt). Source it, then:
#   start_burners NAME  two busy loops per core, at nice 0 where allowed; says so as NAME
#                       (call it directly, not in $(…): a subshell would keep the burners)
#   burners_alive       false when a burner stopped before stop_burners
#   stop_burners        ends them (idempotent)
# Two per core, so that a busy thread of the work gets about a third of a core, as beside a
# parallel build. They are not niced: libdispatch's worker threads run at nice 0 whatever the
# script's niceness, so a niced burner would yield to them.
burners=()

start_burners() {
  local cores per_core=2
  cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
  for _ in $(seq $((cores * per_core))); do
    ( while :; do :; done ) &
    burners+=($!)
    renice 0 -p $! >/dev/null 2>&1 || true
  done
  echo "$1: ${#burners[@]} CPU burners at nice $(ps -o ni= -p "${burners[0]}" | tr -d ' ') on $cores core(s)"
}

burners_alive() {
  local pid
  for pid in ${burners[@]+"${burners[@]}"}; do kill -0 "$pid" 2>/dev/null || return 1; done
}

stop_burners() {
  local pid
  for pid in ${burners[@]+"${burners[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${burners[@]+"${burners[@]}"}; do wait "$pid" 2>/dev/null || true; done
  burners=()
}
