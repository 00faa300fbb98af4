package realtime

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/token"
)

// caller is whom a channel acts as.
type caller struct {
	raw     string // the token, the cache key of its decisions
	role    string
	claims  []byte
	expires time.Time // zero: the configured API keys, which do not expire
}

// Supabase's join and shutdown reasons for tokens.
const (
	reasonExpired   = "InvalidJWTToken: Token has expired"
	reasonNoClaims  = "InvalidJWTToken: Fields `role` and `exp` are required in JWT"
	reasonSignature = "JwtSignatureError: Failed to validate JWT signature"
	reasonMalformed = "MalformedJWT: The token provided is not a valid JWT"
)

// authenticate resolves tok (or, when empty or an opaque sb_ key, the
// socket's apikey) as /rest/v1 does: signed by a key of the gateway's set,
// with a role; Supabase also requires exp. Nothing else about the claims
// matters for a public channel: a custom JWT with a non-UUID sub, no aud
// or another issuer joins. The returned reason is "" or the "<Code>:
// message" to send.
func (s *Service) authenticate(tok, apikey string) (*caller, string) {
	if tok == "" || strings.HasPrefix(tok, "sb_") {
		tok = apikey
	}
	for _, k := range []struct{ key, role string }{{s.anonKey, "anon"}, {s.svcKey, "service_role"}} {
		if k.key != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(k.key)) == 1 {
			claims, _ := json.Marshal(map[string]string{"role": k.role})
			if v, err := s.verifier.Verify(tok); err == nil {
				claims = v.JSON
			}
			return &caller{raw: tok, role: k.role, claims: claims}, ""
		}
	}
	v, err := s.verifier.Verify(tok)
	switch {
	case err == nil:
	case errors.Is(err, token.ErrExpired):
		return nil, reasonExpired
	case errors.Is(err, token.ErrSignature):
		return nil, reasonSignature
	case errors.Is(err, token.ErrClaims):
		return nil, reasonNoClaims
	default:
		return nil, reasonMalformed
	}
	if v.Expires.IsZero() {
		return nil, reasonNoClaims
	}
	return &caller{raw: tok, role: v.Role, claims: v.JSON, expires: v.Expires}, ""
}

// policies is what the RLS policies on realtime.messages allow a caller on
// one topic.
type policies struct {
	BroadcastRead, BroadcastWrite bool
	PresenceRead, PresenceWrite   bool
}

// authzCache keeps decisions per (topic, token) until the token expires, so
// a reconnect storm does not turn into a probe per join.
type authzCache struct {
	mu sync.Mutex
	m  map[string]authzEntry
}

type authzEntry struct {
	pol   policies
	until time.Time
}

// dbTimeout bounds each database step of a join or a presence change, so
// an exhausted pool or a stalled server fails the step instead of
// freezing the socket's reader.
const dbTimeout = 5 * time.Second

// maxAuthzEntries bounds the cache; past it, it starts over.
const maxAuthzEntries = 50000

func newAuthzCache() *authzCache { return &authzCache{m: map[string]authzEntry{}} }

// authorize returns the caller's policies on a private topic, from the
// cache or from a probe. reason is set when the database could not answer.
func (s *Service) authorize(ctx context.Context, topic string, who *caller) (policies, string) {
	if !db.AllowedRoles[who.role] {
		return policies{}, "Unauthorized: You do not have permissions to read from this Channel topic: " + topic
	}
	key := topic + "\x00" + who.raw
	now := time.Now()
	s.authz.mu.Lock()
	e, ok := s.authz.m[key]
	s.authz.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.pol, ""
	}
	pctx, cancel := context.WithTimeout(ctx, dbTimeout)
	pol, err := s.probe(pctx, topic, who)
	cancel()
	if err != nil {
		s.log.WarnContext(ctx, "realtime: authorising a private channel failed", "topic", topic, "err", err)
		if errors.Is(err, context.DeadlineExceeded) {
			// Supabase's answer when its authorisation pool is exhausted.
			return policies{}, "IncreaseConnectionPool: Please increase your connection pool size"
		}
		return policies{}, "UnableToSetPolicies: Realtime was unable to connect to the project database"
	}
	until := who.expires
	if until.IsZero() {
		until = now.Add(time.Minute)
	}
	s.authz.mu.Lock()
	if len(s.authz.m) >= maxAuthzEntries {
		clear(s.authz.m)
	}
	s.authz.m[key] = authzEntry{pol: pol, until: until}
	s.authz.mu.Unlock()
	return pol, ""
}

// probe asks the policies the way Supabase does: in one transaction that
// is always rolled back, insert a broadcast and a presence row for the
// topic as the owner, switch to the caller's role and claims with
// realtime.topic() set, read them back (SELECT policies: may receive) and
// try to insert each again under a savepoint (INSERT policies: may send).
// A policy that raises an error counts as a refusal.
func (s *Service) probe(ctx context.Context, topic string, who *caller) (policies, error) {
	var pol policies
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return pol, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := tx.Query(ctx, `INSERT INTO realtime.messages (topic, extension, private)
VALUES ($1, 'broadcast', true), ($1, 'presence', true) RETURNING id`, topic)
	if err != nil {
		return pol, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil {
		return pol, err
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
 set_config('realtime.topic', $3, true), set_config('request.headers', '{}', true)`, who.role, string(who.claims), topic); err != nil {
		return pol, err
	}
	for _, ext := range []string{"broadcast", "presence"} {
		w, err := canInsert(ctx, tx, topic, ext)
		if err != nil {
			return pol, err
		}
		if ext == "broadcast" {
			pol.BroadcastWrite = w
		} else {
			pol.PresenceWrite = w
		}
	}
	if _, err := tx.Exec(ctx, "SAVEPOINT realtime_read"); err != nil {
		return pol, err
	}
	rows, err = tx.Query(ctx, "SELECT extension FROM realtime.messages WHERE id = ANY($1) AND topic = $2", ids, topic)
	if err == nil {
		var exts []string
		exts, err = pgx.CollectRows(rows, pgx.RowTo[string])
		for _, e := range exts {
			pol.BroadcastRead = pol.BroadcastRead || e == "broadcast"
			pol.PresenceRead = pol.PresenceRead || e == "presence"
		}
	}
	if err != nil {
		// A policy that fails (e.g. it reads a table the role may not)
		// grants nothing; the transaction is still usable past the
		// savepoint, but there is nothing left to ask.
		s.log.WarnContext(ctx, "realtime: a SELECT policy on realtime.messages failed; treated as a refusal", "topic", topic, "err", err)
	}
	return pol, nil
}

// canInsert tries the caller's INSERT under a savepoint.
func canInsert(ctx context.Context, tx pgx.Tx, topic, ext string) (bool, error) {
	if _, err := tx.Exec(ctx, "SAVEPOINT realtime_write"); err != nil {
		return false, err
	}
	_, err := tx.Exec(ctx, "INSERT INTO realtime.messages (topic, extension, private) VALUES ($1, $2, true)", topic, ext)
	if _, rerr := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT realtime_write"); rerr != nil {
		return false, rerr
	}
	return err == nil, nil
}
