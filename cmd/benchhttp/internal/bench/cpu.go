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
	total := schedstat(m.postmaster)
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

// parentOf reads a process's parent pid from /proc/<pid>/stat (the field
// after the parenthesised command name, which may itself hold spaces).
func parentOf(pid int) (int, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: short", pid)
	}
	return strconv.Atoi(f[1])
}

// schedstat is the nanoseconds pid has run on a CPU; 0 once it is gone (a
// backend that exits during a phase loses its time, which the pools'
// long-lived connections make rare).
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
