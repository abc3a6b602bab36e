#!/bin/sh
# deps.sh build|check|test — make sure what fusediff needs is installed.
#
#   build: the compiler tool chain and libraries (ncursesw, cJSON, zlib, SQLite, Nettle, pkg-config,
#          autoconf, g++ for libstdc++'s demangler; ISA-L for gzip input where the
#          distribution has it: without it zlib inflates everything). Missing ones are installed with
#          apt-get when we run as root on Debian/Ubuntu; otherwise the exact command to
#          run is printed and the script fails.
#   check: the Check library the unit tests are written with; the same way.
#   test:  tools some tests use (tmux, mandoc, valgrind, clang-format, GNU time, Python's jsonschema). Installed the same
#          way when possible; when not, those tests report "skipped", never "passed".
set -u

mode=${1:-build}
missing=""

need() { # need PACKAGE: remember a missing Debian package
	case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}
have() { command -v "$1" >/dev/null 2>&1; }
pc() { have pkg-config && pkg-config --exists "$1"; }

if [ "$mode" = build ]; then
	have cc || have gcc || need gcc
	have make || need make
	have autoconf || need autoconf
	have pkg-config || need pkg-config
	pc ncursesw || need libncurses-dev
	pc libcjson || need libcjson-dev
	pc zlib || need zlib1g-dev
	# ISA-L is not built for every architecture: needed only where apt knows the package
	pc libisal || { have apt-cache && apt-cache show libisal-dev >/dev/null 2>&1 && need libisal-dev; }
	pc sqlite3 || need libsqlite3-dev
	pc nettle || need nettle-dev
	have g++ || need g++
elif [ "$mode" = check ]; then
	pc check || need check
else
	have tmux || need tmux
	have mandoc || need mandoc
	have valgrind || need valgrind
	have clang-format || need clang-format
	# GNU time: peak RSS and CPU time of the benchmarks (bench/*.sh, smoke-run by tests/sh/bench.sh)
	[ -x /usr/bin/time ] || need time
	# the JSON reports are validated against --print-schema with Python's jsonschema (looked
	# for, not imported: an import costs 0.2 s of CPU)
	spec='import importlib.util as u, sys; sys.exit(not u.find_spec("jsonschema"))'
	{ have python3 && python3 -c "$spec" 2>/dev/null; } ||
		{ [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "$spec" 2>/dev/null; } ||
		need python3-jsonschema
fi

[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"

# Another process (unattended-upgrades, a second make) may hold the dpkg lock or apt's lists lock:
# apt-get waits for the dpkg lock up to 5 minutes (DPkg::Lock::Timeout), and we say so; apt-get
# update does not wait for the lists lock, so it is tried again every 5 s for as long.
wait_s=300
aptq="apt-get -qq -o DPkg::Lock::Timeout=$wait_s"
waiting=""
holders() { # "PID COMMAND" of each process with a lock of dpkg's kind (fcntl: POSIX or OFDLCK, not
	# flock(1)'s, which apt ignores) on the dpkg lock or the lists lock (util-linux's lslocks)
	lslocks -n -o TYPE,PID,COMMAND,PATH 2>/dev/null |
		awk '($1 == "POSIX" || $1 == "OFDLCK") &&
			$NF ~ /^\/var\/lib\/(dpkg\/lock|apt\/lists\/lock)/ { print $2, $3 }'
}
say_waiting() { # say once that we wait, naming the holder when lslocks can
	[ -z "$waiting" ] || return 0
	waiting=yes
	holder=$(holders | awk 'NR == 1 { print " (" $2 ", pid " $1 ")" }')
	echo "fusediff: waiting for the dpkg lock held by another process$holder, up to $wait_s s" >&2
}
lock_held() { [ -n "$(holders)" ]; } # (without lslocks: assume not, apt-get waits all the same)
apt_update() { # LOG: apt-get update into LOG, again while another process holds the lists lock
	start=$(date +%s)
	lock_held && say_waiting
	while ! $aptq update >"$1" 2>&1; do
		grep -q 'Could not get lock' "$1" && [ $(($(date +%s) - start)) -lt $wait_s ] || return 1
		say_waiting
		sleep 5
	done
}

if [ "$(id -u)" = 0 ] && have apt-get && [ -f /etc/debian_version ]; then
	echo "fusediff: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp)
	if apt_update "$log" && { ! lock_held || say_waiting; } &&
		$aptq install -y --no-install-recommends $missing >>"$log" 2>&1; then
		rm -f "$log"
		exit 0
	fi
	cat "$log" >&2
	rm -f "$log"
	echo "fusediff: apt-get could not install:$missing" >&2
	[ "$mode" = test ] || exit 1
	exit 0
fi

if [ "$mode" != test ]; then
	echo "fusediff: missing build dependencies:$missing" >&2
	echo "Run this, then make again:" >&2
	echo "    sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "fusediff: optional test tools missing:$missing (their tests will be skipped)." >&2
echo "    To run them: sudo $cmd" >&2
exit 0
