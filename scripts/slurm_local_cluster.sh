#!/usr/bin/env bash
# A throw-away single-node Slurm cluster in one folder, to try `runner sweep --launcher slurm`
# without a real cluster (and for the integration test). Needs root and Debian's `slurm-wlm` and
# `munge` packages (`make test-deps`). Everything (config, state, logs, pid files, a private munge
# key and socket) lives under DIR; nothing in /etc is changed.
#
#   scripts/slurm_local_cluster.sh start DIR   # starts munged, slurmctld, slurmd; waits for the node
#   export SLURM_CONF=DIR/slurm.conf           # then sbatch, squeue, runner sweep --launcher slurm
#   scripts/slurm_local_cluster.sh stop DIR    # stops the daemons it started (by their pid files)
#
# Environment: SLURM_LOCAL_PORT (default 6817) is slurmctld's port, slurmd's the next one.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|status DIR" >&2
  exit 2
}

die() {
  echo "slurm_local_cluster: $*" >&2
  exit 1
}

# Prints the last lines of each daemon's log, for a start that failed.
show_logs() {
  local log
  for log in "$dir"/log/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }
  done
  return 0
}

# A start that failed: the logs, then the daemons already started are stopped again.
fail_start() {
  show_logs
  stop >/dev/null
  die "$1"
}

# The node's line as slurmd sees this machine (CPUs, sockets, cores, RealMemory), named after
# `hostname -s`: a node configured with more than the machine has would be drained. Daemons talk
# over 127.0.0.1, so the host name need not resolve.
node_line() {
  slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$(hostname -s)/"
}

write_config() {
  local port=${SLURM_LOCAL_PORT:-6817}
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm_local_cluster.sh: a single-node cluster under $dir.
ClusterName=runner-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
$(node_line) NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  install -d -m 0700 "$dir/munge"
  [ -f "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" ||
    fail_start "munged did not start"
}

# Waits up to 60 s for the node to accept jobs (idle); prints the daemons' logs if it does not.
wait_for_node() {
  local state=""
  local name
  for _ in $(seq 120); do
    state=$(sinfo --noheader --format=%t 2>/dev/null | head -n 1 || true)
    [ "$state" = idle ] && return 0
    for name in slurmctld slurmd; do  # a daemon that died (a port in use, a bad config)
      if [ -f "$dir/run/$name.pid" ] && ! kill -0 "$(cat "$dir/run/$name.pid")" 2>/dev/null; then
        fail_start "$name stopped; see the logs above"
      fi
    done
    sleep 0.5
  done
  fail_start "the node did not become idle within 60 s (state: '${state:-none}'); see the logs above"
}

start() {
  [ "$(id -u)" = 0 ] || die "needs root (slurmd runs jobs as their users)"
  for tool in munged mungekey slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || die "$tool not found: install Debian's slurm-wlm and munge (make test-deps)"
  done
  [ -f "$dir/run/slurmctld.pid" ] && die "$dir already holds a cluster; stop it first"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  mkdir -p "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
  write_config
  export SLURM_CONF="$dir/slurm.conf"
  start_munge
  slurmctld -c || fail_start "slurmctld did not start"  # -c: no state from a last run
  slurmd || fail_start "slurmd did not start"
  wait_for_node
  echo "Slurm is up: export SLURM_CONF=$dir/slurm.conf"
}

# Sends SIGTERM to the daemon in a pid file, waits up to 10 s, then SIGKILL.
stop_daemon() {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

stop() {
  [ -d "$dir/run" ] || return 0
  stop_daemon "$dir/run/slurmd.pid"
  stop_daemon "$dir/run/slurmctld.pid"
  stop_daemon "$dir/run/munged.pid"
  echo "Slurm under $dir is stopped"
}

status() {
  export SLURM_CONF="$dir/slurm.conf"
  local name
  for name in munged slurmctld slurmd; do
    if [ -f "$dir/run/$name.pid" ] && kill -0 "$(cat "$dir/run/$name.pid")" 2>/dev/null; then
      echo "$name: running (pid $(cat "$dir/run/$name.pid"))"
    else
      echo "$name: not running"
    fi
  done
  sinfo 2>/dev/null || true
}

[ $# = 2 ] || usage
dir=$2
case "$1" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
