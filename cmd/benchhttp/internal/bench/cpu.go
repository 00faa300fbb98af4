package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuMeter splits a phase's CPU between this process (client, gateway and
// floors: whichever side runs) and the PostgreSQL server the benchmark
// uses: its postmaster and every child (backends, WAL writer, …), found by
// parent pid so that other clusters on the machine do not count. CPU time
// comes from /proc/<pid>/schedstat (nanoseconds on a CPU), which a busy
// machine does not inflate the way it inflates wall time: per-request CPU
// is the figure to compare while others load the machine.
type cpuMeter struct {
	postmaster int
}

// newCPUMeter finds the server's postmaster (the parent of one backend);
// nil when PostgreSQL runs elsewhere or /proc is not readable.
func newCPUMeter(ctx context.Context, pool *pgxpool.Pool) *cpuMeter {
	var backend int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return nil
	}
	pp, err := parentOf(backend)
	if err != nil || pp <= 1 {
		return nil
	}
	return &cpuMeter{postmaster: pp}
}

// sample is the CPU used so far by this process and by the server.
func (m *cpuMeter) sample() (self, server time.Duration) {
	if m == nil {
		return 0, 0
	}
	return processCPU("self"), m.server()
}

// server is the CPU the PostgreSQL server has used so far: the postmaster
// and its children; 0 without a meter.
func (m *cpuMeter) server() time.Duration {
	if m == nil {
		return 0
	}
	total := schedstat(m.postmaster) + reaped(m.postmaster)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if pp, err := parentOf(pid); err == nil && pp == m.postmaster {
			total += schedstat(pid)
		}
	}
	return total
}

// processCPU is the CPU a process has used so far, summed over its threads
// (/proc/<pid>/task/*): a Go server's work runs on many threads, and the
// process's own schedstat counts only its main one. pid is a number or
// "self".
func processCPU(pid string) time.Duration {
	var total time.Duration
	threads, _ := filepath.Glob("/proc/" + pid + "/task/[0-9]*")
	for _, t := range threads {
		total += schedstatAt(t)
	}
	return total
}

// parentOf reads a process's parent pid from /proc/<pid>/stat.
func parentOf(pid int) (int, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[1])
}

// statFields are /proc/<pid>/stat's fields after the parenthesised command
// name (which may itself hold spaces): f[0] is field 3 of proc(5), the
// state.
func statFields(pid int) ([]string, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("bench: /proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, fmt.Errorf("bench: /proc/%d/stat: short", pid)
	}
	return f, nil
}

// clockTick is the unit of /proc's cutime and cstime (USER_HZ, 100 on
// Linux; Go has no sysconf without cgo).
const clockTick = 10 * time.Millisecond

// reaped is the CPU of pid's children that have exited and been waited
// for (cutime + cstime): a backend or autovacuum worker that ends during a
// phase takes its time out of the live children's sum and puts it here, so
// that the server's total does not drop. Clock ticks, not nanoseconds, but
// only for processes that are gone.
func reaped(pid int) time.Duration {
	f, err := statFields(pid)
	if err != nil {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[13], 10, 64) // field 16, cutime
	st, err2 := strconv.ParseInt(f[14], 10, 64) // field 17, cstime
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * clockTick
}

// schedstat is the nanoseconds pid has run on a CPU; 0 once it is gone (a
// child of the postmaster that exits is counted by reaped instead).
func schedstat(pid int) time.Duration { return schedstatAt(fmt.Sprintf("/proc/%d", pid)) }

// schedstatAt reads dir/schedstat: a process's main thread, or one task
// of a multi-threaded one (this process's CPU is the sum over its tasks).
func schedstatAt(dir string) time.Duration {
	raw, err := os.ReadFile(dir + "/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(n)
}

// cpuSplit is the table's CPU column: per request, this process's CPU
// plus PostgreSQL's, for the gateway, the setup floor (the gateway's own
// setup statement through pgx: what the setup's content costs), the fair
// floor and the floor.
func cpuSplit(r Result) string {
	us := func(s Side) string {
		return fmt.Sprintf("%.0f + %.0f", float64(s.Self.Nanoseconds())/1e3, float64(s.Server.Nanoseconds())/1e3)
	}
	return us(r.Gateway) + " / " + us(r.SetupFloor) + " / " + us(r.FairFloor) + " / " + us(r.Floor)
}
