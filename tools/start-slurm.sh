#!/usr/bin/env bash
# Start a single-node Slurm cluster on this machine for the cluster tests
# (tests/testthat/test-cluster.R): munge, then slurmctld (the controller) and
# slurmd (the compute daemon) on localhost, one node with the machine's real
# CPUs and memory, one partition, no accounting database.
#
# Needs root and Debian's slurm-wlm and munge (tools/install-deps.sh installs
# them). Idempotent: what is already running is left running, a config this
# script wrote earlier is rewritten, a config it did not write is used as it
# is. Exits non-zero, with the daemons' logs, unless `sinfo` shows the node
# idle and a trivial srun and sbatch job both run.
set -euo pipefail

conf_dir=/etc/slurm
conf=$conf_dir/slurm.conf
marker="# written by epimask tools/start-slurm.sh"
log_dir=/var/log/slurm
wait_s=${EPIMASK_SLURM_WAIT:-60}

die() {
  echo "start-slurm: ERROR: $*" >&2
  for f in "$log_dir/slurmctld.log" "$log_dir/slurmd.log" /var/log/munge/munged.log; do
    [ -f "$f" ] && { echo "---- last lines of $f" >&2; tail -n 25 "$f" >&2; }
  done
  exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (it starts system daemons)"
for cmd in munged slurmctld slurmd sinfo srun sbatch scontrol; do
  command -v "$cmd" >/dev/null 2>&1 ||
    die "'$cmd' not found: install Debian's slurm-wlm and munge (bash tools/install-deps.sh)"
done

# ---- munge: the authentication Slurm's daemons and clients share ----------
key=/etc/munge/munge.key
if [ ! -s "$key" ]; then
  echo "start-slurm: creating the munge key $key"
  mkdir -p /etc/munge
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$key" --force
  else
    dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
  fi
fi
chown -R munge:munge /etc/munge
chmod 0700 /etc/munge
chmod 0400 "$key"
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  echo "start-slurm: starting munged"
  runuser -u munge -- munged
  for _ in $(seq 1 20); do
    munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.5
  done
  munge -n </dev/null | unmunge >/dev/null || die "munged does not answer (munge -n | unmunge)"
fi

# ---- slurm.conf: one node, this machine --------------------------------------
host=$(hostname -s)
# The node line as slurmd measures it (CPUs, sockets, cores, threads,
# RealMemory in MB), e.g. "NodeName=vm CPUs=2 ... RealMemory=24105".
# (slurmd -C prints UpTime=, not a config field, on a second line.)
node_line=$(slurmd -C | head -n 1)
case "$node_line" in
  NodeName=*) ;;
  *) die "slurmd -C did not describe this machine: $node_line" ;;
esac
mkdir -p "$conf_dir" "$log_dir" /var/spool/slurmctld /var/spool/slurmd
if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
  echo "start-slurm: using the existing $conf (not written by this script)"
else
  tmp=$(mktemp)
  cat >"$tmp" <<EOF
$marker
# A single-node cluster on localhost for epimask's cluster tests.
ClusterName=epimask
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=60
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -f "$conf" ] && cmp -s "$tmp" "$conf"; then
    rm -f "$tmp"
  else
    mv "$tmp" "$conf"
    chmod 0644 "$conf"
    echo "start-slurm: wrote $conf ($node_line)"
    # daemons running with an older config re-read it
    if pgrep -x slurmctld >/dev/null 2>&1; then scontrol reconfigure || true; fi
  fi
fi

# ---- the daemons ------------------------------------------------------------------
if ! pgrep -x slurmctld >/dev/null 2>&1; then
  echo "start-slurm: starting slurmctld"
  slurmctld || die "slurmctld did not start"
fi
for _ in $(seq 1 "$wait_s"); do
  scontrol ping 2>/dev/null | grep -q "is UP" && break
  sleep 1
done
scontrol ping 2>/dev/null | grep -q "is UP" || die "slurmctld does not answer (scontrol ping)"
if ! pgrep -x slurmd >/dev/null 2>&1; then
  echo "start-slurm: starting slurmd"
  slurmd -N "$host" || die "slurmd did not start"
fi

node_state() { sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1; }
state=""
for _ in $(seq 1 "$wait_s"); do
  state=$(node_state)
  case "$state" in
    idle|mixed|allocated) break ;;
    drain*|down*|fail*)
      # left over from an earlier run (a daemon that was killed): resume it
      scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
  esac
  sleep 1
done
case "$state" in
  idle|mixed|allocated) ;;
  *) sinfo -N -l >&2 || true; die "node $host is '$state', not idle, after ${wait_s}s" ;;
esac

# ---- proof: a trivial job each way ----------------------------------------------
out=$(timeout "$wait_s" srun -N 1 -n 1 -t 1 echo epimask-srun-ok 2>&1) ||
  die "srun failed: $out"
# srun adds "queued and waiting for resources" lines when other jobs hold the
# node: the job's own output line is what counts
printf '%s\n' "$out" | grep -qx epimask-srun-ok || die "srun printed '$out'"
tmpd=$(mktemp -d)
out_file=$tmpd/sbatch.out
timeout "$wait_s" sbatch --wait -N 1 -n 1 -t 1 -o "$out_file" \
  --wrap 'echo epimask-sbatch-ok' >/dev/null 2>"$tmpd/err" ||
  die "sbatch failed: $(cat "$tmpd/err")"
grep -qx epimask-sbatch-ok "$out_file" || die "sbatch job wrote '$(cat "$out_file" 2>/dev/null)'"
rm -rf "$tmpd"

echo "start-slurm: Slurm is up: $(sinfo -h -o '%P %a %D node(s) %T, %c CPUs, %m MB')"
