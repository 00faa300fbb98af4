package main

import (
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest"
)

// --history shows why a pass stopped and its network and parse failures
// apart; the summary of --once does too.
func TestCrawlOutputShowsStopReasonAndFailures(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	end := start.Add(90 * time.Second)
	var out strings.Builder
	printHistory(&out, []ingest.Run{
		{ID: 9, StartedAt: start, FinishedAt: &end, Status: ingest.RunFailed, Error: "failed: every one of the 2 requests failed",
			Summary: ingest.Summary{NetworkFailures: 2, StopReason: ingest.StopOffline}},
		{ID: 8, StartedAt: start, FinishedAt: &end, Status: ingest.RunSucceeded,
			Summary: ingest.Summary{ReleasesAdded: 5, NetworkFailures: 1, ParseFailures: 3}},
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "NET FAIL  PARSE FAIL  STOP") {
		t.Fatalf("history:\n%s", out.String())
	}
	if f := strings.Fields(lines[1]); len(f) < 15 || f[4] != "failed" || f[11] != "2" || f[12] != "0" || f[13] != "offline" {
		t.Errorf("failed pass row %q", f)
	}
	if f := strings.Fields(lines[2]); len(f) != 14 || f[11] != "1" || f[12] != "3" || f[13] != "-" {
		t.Errorf("succeeded pass row %q", f)
	}

	out.Reset()
	printSummary(&out, ingest.Summary{Requests: 4, NetworkFailures: 1, ParseFailures: 2, LabelsUnchanged: 1,
		StopReason: ingest.StopAllFailed, Stopped: "failed: every one of the 4 requests failed"})
	for _, want := range []string{"requests: 4 (network failures 1, parse failures 2; 1 label pages unchanged)",
		"private.label_parse_failures", "stop reason: all_failed\nfailed: every one"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
