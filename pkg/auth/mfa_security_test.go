package auth

// The MFA tests that guard against abuse: the rate limit, single use
// under concurrency, aal2 for credential changes, the admin factor API
// and the RFC 6238 vectors. The flows are in mfa_test.go.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMFARateLimit(t *testing.T) {
	t.Parallel()
	// GoTrue's defaults: 15 a minute, bursts of 30; the per-factor lock
	// (TestTOTPFactorLocksAfterFailures) is raised out of the way.
	e := setup(t, map[string]string{"MFA_MAX_FAILURES": "1000"})
	m := e.enrollTOTP("brute@example.com")
	ch := e.challenge(m.access, m.factorID)
	right := m.code(t, e.clock.Now())
	tried := 0
	for code := 100000; tried < 30; code++ {
		guess := fmt.Sprintf("%06d", code)
		if guess == right {
			continue
		}
		e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access,
			body: map[string]any{"challenge_id": ch.str("id"), "code": guess}}).expect(t, 422, "mfa_verification_failed")
		tried++
	}
	body := map[string]any{"challenge_id": ch.str("id"), "code": right}
	r := e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access, body: body})
	r.expect(t, 429, "over_request_rate_limit")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Another address has its own bucket; this one refills at 15 a minute.
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/challenge", bearer: m.access, ip: "198.51.100.7"}).expect(t, 200, "")
	e.clock.Advance(4 * time.Second)
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access, body: body}).expect(t, 200, "")

	// Challenges have their own bucket of the same size (full again: the
	// 4 s above refilled the one taken from 198.51.100.7).
	for range 30 {
		e.do(req{method: "POST", path: "/factors/" + m.factorID + "/challenge", bearer: m.access, ip: "198.51.100.7"}).expect(t, 200, "")
	}
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/challenge", bearer: m.access, ip: "198.51.100.7"}).expect(t, 429, "over_request_rate_limit")
}

func TestMFAAdminFactors(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("lost@example.com")
	v := e.verifyFactorCode(m.access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	uid := obj(t, v.JSON, "user")["id"].(string)

	l := e.admin(req{method: "GET", path: "/admin/users/" + uid + "/factors"})
	l.expect(t, 200, "")
	if !strings.HasPrefix(string(l.Body), "[") || !strings.Contains(string(l.Body), `"status":"verified"`) || strings.Contains(string(l.Body), m.secret) {
		t.Errorf("admin factors = %s", l.Body)
	}
	e.do(req{method: "GET", path: "/admin/users/" + uid + "/factors", bearer: m.access}).expect(t, 403, "not_admin")
	e.admin(req{method: "GET", path: "/admin/users/00000000-0000-0000-0000-000000000001/factors"}).expect(t, 404, "user_not_found")
	e.admin(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/00000000-0000-0000-0000-000000000001"}).expect(t, 404, "mfa_factor_not_found")
	e.do(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/" + m.factorID, bearer: m.access}).expect(t, 403, "not_admin")

	d := e.admin(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/" + m.factorID})
	d.expect(t, 200, "")
	if d.str("id") != m.factorID || d.str("factor_type") != "totp" {
		t.Errorf("admin delete body = %s", d.Body)
	}
	empty := e.admin(req{method: "GET", path: "/admin/users/" + uid + "/factors"})
	if strings.TrimSpace(string(empty.Body)) != "[]" {
		t.Errorf("after delete = %s", empty.Body)
	}
	if aal, _, _ := e.claims(e.refresh(v.str("refresh_token")).str("access_token")); aal != "aal1" {
		t.Errorf("session still %s after the admin removed its factor", aal)
	}
	var action string
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT payload->>'actor_username' FROM auth.audit_log_entries
		WHERE payload->>'action' = 'factor_deleted'`).Scan(&action); err != nil || action != "service_role" {
		t.Errorf("factor_deleted audit: %q %v", action, err)
	}
}

// RFC 6238 appendix B's SHA-1 vectors, cut to six digits: the library
// and the step search agree with the standard, not only with each other.
func TestAcceptTOTPVectors(t *testing.T) {
	const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // "12345678901234567890"
	for _, c := range []struct {
		unix int64
		code string
	}{{59, "287082"}, {1111111109, "081804"}, {1234567890, "005924"}, {2000000000, "279037"}} {
		step, ok := acceptTOTP(secret, c.code, time.Unix(c.unix, 0), nil)
		if !ok || step != c.unix/30 {
			t.Errorf("T=%d: step %d ok %v", c.unix, step, ok)
		}
		last := c.unix / 30
		if _, ok := acceptTOTP(secret, c.code, time.Unix(c.unix, 0), &last); ok {
			t.Errorf("T=%d: accepted a used step", c.unix)
		}
	}
	for _, bad := range []string{"", "28708", "2870822", "28708a", " 87082"} {
		if _, ok := acceptTOTP(secret, bad, time.Unix(59, 0), nil); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

// GoTrue's rule: with a verified factor, an aal1 session may not change
// the password or the email (a stolen password must not lock the owner
// out); metadata and an aal2 session are fine.
func TestMFACredentialsNeedAAL2(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("creds@example.com")
	// Before the factor is verified nothing changes.
	e.do(req{method: "PUT", path: "/user", bearer: m.access, body: map[string]any{"data": map[string]any{"n": 1}}}).expect(t, 200, "")
	v := e.verifyFactorCode(m.access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	weak := e.signIn(m.email, m.password).str("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"password": "new-password-1"}}).expect(t, 401, "insufficient_aal")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"email": "thief@example.com"}}).expect(t, 401, "insufficient_aal")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"email": "creds@example.com", "data": map[string]any{"n": 2}}}).expect(t, 200, "")
	e.do(req{method: "PUT", path: "/user", bearer: v.str("access_token"), body: map[string]any{"password": "new-password-1"}}).expect(t, 200, "")
	e.signIn(m.email, "new-password-1")
}

// Sessions presenting the same code at once: exactly one passes and the
// others meet the used step (no replay through a race: the factor's row
// lock serialises them, and the step's compare-and-set, tested on its own
// below, would refuse them anyway). The sessions are aal2 already,
// so that none is ended by the winner and each loser is refused for its
// code alone.
func TestMFAConcurrentReplay(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("race@example.com")
	e.verifyFactorCode(m.access, m.factorID, m.code(t, e.clock.Now())).expect(t, 200, "")
	var sessions []string
	for range 4 {
		e.clock.Advance(30 * time.Second)
		access := e.signIn(m.email, m.password).str("access_token")
		v := e.verifyFactorCode(access, m.factorID, m.code(t, e.clock.Now()))
		v.expect(t, 200, "")
		sessions = append(sessions, v.str("access_token"))
	}
	e.clock.Advance(30 * time.Second)
	code := m.code(t, e.clock.Now())
	var challenges []string
	for _, access := range sessions {
		ch := e.challenge(access, m.factorID)
		ch.expect(t, 200, "")
		challenges = append(challenges, ch.str("id"))
	}
	statuses := make(chan *response, len(sessions))
	var wg sync.WaitGroup
	for i, access := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: access,
				body: map[string]any{"challenge_id": challenges[i], "code": code}})
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[string]int{}
	for r := range statuses {
		counts[fmt.Sprint(r.Status, r.str("code"))]++
	}
	if counts["200"] != 1 || counts["422mfa_verification_failed"] != len(sessions)-1 {
		t.Errorf("outcomes = %v, want one 200 and the rest 422 mfa_verification_failed", counts)
	}
}

// The step only moves forward in the database itself, whatever the caller
// read before: a second acceptance of the same (or an older) step fails.
func TestConsumeChallengeComparesAndSets(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("cas@example.com")
	ctx := context.Background()
	now := e.clock.Now()
	for _, c := range []struct {
		step int64
		want error
	}{{100, nil}, {100, errStepUsed}, {99, errStepUsed}, {101, nil}} {
		id := e.challenge(m.access, m.factorID).str("id")
		err := consumeChallenge(ctx, e.db.Pool, &challenge{ID: id, FactorID: m.factorID}, c.step, now)
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("step %d: err = %v, want %v", c.step, err, c.want)
		}
	}
}
