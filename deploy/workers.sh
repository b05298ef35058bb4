#!/bin/bash
# Throneroom workers on a machine without systemd (a container, a plain chroot): docs/operating.md.
#
#   deploy/workers.sh start N       start workers 1..N (ports FIRST_PORT .. FIRST_PORT+N-1) that are not running
#   deploy/workers.sh stop [PORT..] stop these workers (default: all), each as `drain` does, all at once
#   deploy/workers.sh drain PORT..  stop these workers one after the other, each waiting until it holds no room
#   deploy/workers.sh status        each worker's process and /healthz, then `throneroom cluster status`
#
# Each worker runs in a session of its own (setsid), its input from /dev/null and its output into
# $THRONEROOM_LOG/worker-PORT.log: it outlives the terminal and the shell that started it. Its process id is in
# $THRONEROOM_RUN/worker-PORT.pid. Its --worker-id is HOSTNAME-PORT, as the systemd unit names it
# (deploy/throneroom-worker@.service), so `throneroom cluster status` shows which port holds which room.
#
# What a worker does on SIGTERM (host/cli.py, host/app.py shutdown): its /healthz answers 503 "stopping" (HAProxy
# takes it out), it closes every socket (the pages reconnect through HAProxy to the worker the ring gives next),
# writes its rooms' game clocks and releases their leases, so that worker takes each room at once; then it exits.
#
# Settings, from the environment or the file $THRONEROOM_ENV (default /etc/throneroom/worker.env, the systemd unit's):
#   DATABASE_URL MESSAGE_QUEUE PUBLIC_URL LISTEN TRUST_PROXY WORKER_OPTIONS   as deploy/worker.env explains
#   FIRST_PORT        the first worker's port (default 8001; HAProxy's configuration lists the same ports)
#   THRONEROOM        the command (default /opt/throneroom/venv/bin/throneroom)
#   THRONEROOM_USER   the user workers run as when started by root (default throneroom; empty: the caller)
#   THRONEROOM_RUN    where the pid files go (default /run/throneroom)
#   THRONEROOM_LOG    where the logs go (default /var/log/throneroom)
#   STOP_TIMEOUT      seconds a worker has to exit after SIGTERM before SIGKILL (default 20, as the unit's)
#   START_TIMEOUT     seconds a worker has to answer /healthz after its start (default 60)
set -u

fail() { echo "workers.sh: $*" >&2; exit 2; }

ENV_FILE=${THRONEROOM_ENV:-/etc/throneroom/worker.env}
read_env() {  # KEY=VALUE lines as systemd's EnvironmentFile reads them (not run as shell: quotes only stripped)
    local line key value
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line#"${line%%[![:space:]]*}"}
        case $line in ''|'#'*|';'*) continue ;; esac
        key=${line%%=*}
        value=${line#*=}
        [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [ "$key" != "$line" ] || fail "$ENV_FILE: not KEY=VALUE: $line"
        if [[ $value =~ ^\"(.*)\"$ ]] || [[ $value =~ ^\'(.*)\'$ ]]; then value=${BASH_REMATCH[1]}; fi
        export "$key=$value"
    done < "$1"
}

if [ -r "$ENV_FILE" ]; then
    read_env "$ENV_FILE"
elif [ -n "${THRONEROOM_ENV:-}" ]; then
    echo "workers.sh: cannot read $ENV_FILE" >&2
    exit 2
fi
THRONEROOM=${THRONEROOM:-/opt/throneroom/venv/bin/throneroom}
RUN=${THRONEROOM_RUN:-/run/throneroom}
LOGS=${THRONEROOM_LOG:-/var/log/throneroom}
FIRST_PORT=${FIRST_PORT:-8001}
LISTEN=${LISTEN:-127.0.0.1}
TRUST_PROXY=${TRUST_PROXY:-1}
STOP_TIMEOUT=${STOP_TIMEOUT:-20}
START_TIMEOUT=${START_TIMEOUT:-60}
RUN_AS=${THRONEROOM_USER-throneroom}
HOST_NAME=$(hostname)

number() {  # number VALUE WHAT: a positive whole number, or fail
    case $1 in ''|*[!0-9]*) fail "$2 must be a number, not '$1'" ;; esac
}

pid_of() {  # the pid of the worker on port $1 if it runs, else nothing
    local file="$RUN/worker-$1.pid" pid
    [ -r "$file" ] || return 1
    read -r pid < "$file" || return 1
    case $pid in ''|*[!0-9]*) return 1 ;; esac
    # the pid is this worker's only if its command line names the port (a pid reused by another process is not)
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--port $1 "; then
        echo "$pid"
        return 0
    fi
    return 1
}

probe() {  # probe PORT: the status line of the worker's /healthz (bash's /dev/tcp: no curl needed)
    local address=$LISTEN answer
    case $address in 0.0.0.0|'') address=127.0.0.1 ;; ::|'[::]') address=::1 ;; esac
    answer=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
        printf "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
        cat <&3' probe "$address" "$1" 2>/dev/null) || return 1
    echo "$answer" | tr -d '\r' | awk 'NR == 1 {status = $2} body {printf "%s%s", sep, $0; sep = ", "}
        /^$/ {body = 1} END {if (status == "") exit 1; printf " (HTTP %s)\n", status}'
}

start_one() {  # start_one PORT
    local port=$1 pid log="$LOGS/worker-$1.log" waited=0
    if pid=$(pid_of "$port"); then
        echo "worker $port: already running (pid $pid)"
        return 0
    fi
    : "${DATABASE_URL:?is not set (worker.env)}" "${MESSAGE_QUEUE:?is not set (worker.env)}" \
        "${PUBLIC_URL:?is not set (worker.env)}"
    local as_user=()
    if [ "$(id -u)" = 0 ] && [ -n "$RUN_AS" ]; then
        id "$RUN_AS" >/dev/null 2>&1 || fail "no user $RUN_AS: create it (docs/operating.md) or set THRONEROOM_USER="
        as_user=(setpriv "--reuid=$RUN_AS" "--regid=$RUN_AS" --init-groups --)
        touch "$log" && chown "$RUN_AS:" "$log"
    fi
    touch "$log" && chmod 640 "$log"  # a worker's log may name rooms and addresses: not for every user
    # setsid: a session of its own, so the terminal's hangup never reaches it; the shell it runs in writes its own
    # pid and then becomes the worker (exec), so the pid file names the worker itself. WORKER_OPTIONS is split into
    # words on purpose (several options).
    # shellcheck disable=SC2086
    setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' worker "$RUN/worker-$port.pid" \
        "${as_user[@]}" $THRONEROOM worker --host "$LISTEN" --port "$port" --worker-id "$HOST_NAME-$port" \
        --database-url "$DATABASE_URL" --message-queue "$MESSAGE_QUEUE" --public-url "$PUBLIC_URL" \
        --trust-proxy "$TRUST_PROXY" --quiet ${WORKER_OPTIONS:-} < /dev/null >> "$log" 2>&1 &
    while ! probe "$port" >/dev/null; do
        sleep 0.2
        waited=$((waited + 1))
        if ! pid_of "$port" >/dev/null && [ $waited -gt 5 ]; then
            echo "worker $port: exited at its start; the end of $log:" >&2
            tail -n 15 "$log" >&2
            return 1
        fi
        if [ $waited -ge $((START_TIMEOUT * 5)) ]; then
            echo "worker $port: no answer on /healthz after $START_TIMEOUT s (its log: $log)" >&2
            return 1
        fi
    done
    echo "worker $port: running (pid $(pid_of "$port"), id $HOST_NAME-$port, log $log)"
}

signal_stop() {  # signal_stop PORT: SIGTERM, once; says whether there was a worker
    local pid
    if pid=$(pid_of "$1"); then
        kill -TERM "$pid"
        return 0
    fi
    rm -f "$RUN/worker-$1.pid"
    return 1
}

await_exit() {  # await_exit PORT: wait STOP_TIMEOUT for the worker's exit, then SIGKILL
    local port=$1 pid waited=0
    while pid=$(pid_of "$port"); do
        if [ $waited -ge $((STOP_TIMEOUT * 5)) ]; then
            echo "worker $port: still running $STOP_TIMEOUT s after SIGTERM: killed (its leases expire in 3 s)" >&2
            kill -KILL "$pid" 2>/dev/null
            sleep 0.2
            continue
        fi
        sleep 0.2
        waited=$((waited + 1))
    done
    rm -f "$RUN/worker-$port.pid"
}

drained() {  # drained PORT: wait until the worker's id holds no live lease (released at its stop, or expired)
    local code=0
    # shellcheck disable=SC2086
    $THRONEROOM cluster wait-drained --database-url "$DATABASE_URL" --worker-id "$HOST_NAME-$1" \
        --timeout "$STOP_TIMEOUT" >/dev/null || code=$?
    [ $code = 0 ] && echo "worker $1: stopped, holds no room" || echo "worker $1: stopped, but see the error above" >&2
    return $code
}

known_ports() {  # the ports with a pid file
    local file
    for file in "$RUN"/worker-*.pid; do
        [ -e "$file" ] || continue
        file=${file##*/worker-}
        echo "${file%.pid}"
    done | sort -n
}

command=${1:-}
[ $# -gt 0 ] && shift
case $command in
    start)
        [ $# = 1 ] || fail "usage: workers.sh start N"
        number "$1" "the number of workers"
        number "$FIRST_PORT" FIRST_PORT
        [ "$1" -ge 1 ] && [ "$1" -le 99 ] || fail "start 1 to 99 workers"
        mkdir -p "$RUN" "$LOGS" || fail "cannot make $RUN or $LOGS"
        status=0
        for ((k = 0; k < $1; k++)); do
            start_one $((FIRST_PORT + k)) || status=1
        done
        exit $status ;;
    stop|drain)
        if [ $# = 0 ]; then
            [ "$command" = stop ] || fail "usage: workers.sh drain PORT..."
            set -- $(known_ports)
        fi
        for port in "$@"; do number "$port" "a port"; done
        status=0
        if [ "$command" = stop ]; then  # all at once: a whole machine going down
            stopping=()
            for port in "$@"; do
                signal_stop "$port" && stopping+=("$port") || echo "worker $port: not running"
            done
            for port in "${stopping[@]}"; do await_exit "$port"; done
            for port in "${stopping[@]}"; do drained "$port" || status=1; done
        else  # one after the other: the others take each one's rooms before the next goes
            for port in "$@"; do
                if signal_stop "$port"; then
                    await_exit "$port"
                    drained "$port" || status=1
                else
                    echo "worker $port: not running"
                fi
            done
        fi
        exit $status ;;
    status)
        ports=$(known_ports)
        [ -n "$ports" ] || echo "no worker started by workers.sh (no pid file in $RUN)"
        for port in $ports; do
            if pid=$(pid_of "$port"); then
                echo "worker $port: pid $pid, id $HOST_NAME-$port, /healthz: $(probe "$port" || echo 'no answer')"
            else
                echo "worker $port: not running (stale pid file; its log: $LOGS/worker-$port.log)"
            fi
        done
        echo
        # shellcheck disable=SC2086
        exec $THRONEROOM cluster status --database-url "${DATABASE_URL:-}" ;;
    *)
        fail "usage: workers.sh start N | stop [PORT...] | drain PORT... | status (docs/operating.md)" ;;
esac
