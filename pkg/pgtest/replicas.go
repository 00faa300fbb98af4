package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgcluster"
)

// ReplicaSet is a primary with streaming replicas (pg_basebackup -R) and
// one migrated database, for tests of replica routing, poolers and
// failover. The authenticator role has a password so that REST pools and
// PgBouncer can log in as it.
type ReplicaSet struct {
	Primary  *pgcluster.Cluster
	Replicas []*pgcluster.Cluster
	// DB is the migrated database's name.
	DB string
	// AuthenticatorPassword is authenticator's password.
	AuthenticatorPassword string
	dir                   string
}

// replicaDBName is the migrated database every replica set has.
const replicaDBName = "lbreplicas"

var (
	sharedOnce sync.Once
	shared     *ReplicaSet
	sharedErr  error
)

// SharedReplicaSet is one primary with two replicas for the whole test
// binary, started on first use and stopped when Main ends. Tests that
// pause replay must resume it before they end; tests that stop a server
// need a set of their own (NewReplicaSet).
func SharedReplicaSet(t testing.TB) *ReplicaSet {
	t.Helper()
	if testing.Short() {
		t.Skip("starts three PostgreSQL clusters")
	}
	sharedOnce.Do(func() { shared, sharedErr = startReplicaSet(2) })
	if sharedErr != nil {
		t.Fatalf("pgtest: replica set: %v", sharedErr)
	}
	return shared
}

// NewReplicaSet starts a primary with n replicas for one test, stopped at
// its cleanup.
func NewReplicaSet(t testing.TB, n int) *ReplicaSet {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL clusters")
	}
	s, err := startReplicaSet(n)
	if err != nil {
		t.Fatalf("pgtest: replica set: %v", err)
	}
	t.Cleanup(s.stop)
	return s
}

func startReplicaSet(n int) (_ *ReplicaSet, err error) {
	ctx := context.Background()
	// Not t.TempDir(): as root the servers run as another user, who must
	// enter every directory above their data.
	dir, err := os.MkdirTemp("", "labelbase-pgrs-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, err
	}
	s := &ReplicaSet{DB: replicaDBName, AuthenticatorPassword: randomHex(12), dir: dir}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	if s.Primary, err = pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "primary"), Fast: true}); err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	for i := range n {
		r, err := s.Primary.StartReplica(ctx, filepath.Join(dir, "r"+strconv.Itoa(i)))
		if err != nil {
			return nil, err
		}
		s.Replicas = append(s.Replicas, r)
	}
	return s, nil
}

func (s *ReplicaSet) migrate(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, s.Primary.URL("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+replicaDBName); err != nil {
		return err
	}
	m, err := migrate.New(s.Primary.URL(replicaDBName))
	if err != nil {
		return err
	}
	upErr := m.Up()
	if err := m.Close(); err != nil && upErr == nil {
		upErr = err
	}
	if upErr != nil {
		return upErr
	}
	_, err = admin.Exec(ctx, fmt.Sprintf("ALTER ROLE authenticator PASSWORD '%s'", s.AuthenticatorPassword))
	return err
}

// URL is a superuser URL of the migrated database on the primary.
func (s *ReplicaSet) URL() string { return s.Primary.URL(s.DB) }

// On is a superuser URL of the migrated database on c (a replica).
func (s *ReplicaSet) On(c *pgcluster.Cluster) string { return c.URL(s.DB) }

// AsAuthenticator is u with authenticator's login instead of its user.
func (s *ReplicaSet) AsAuthenticator(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parsed.User = url.UserPassword("authenticator", s.AuthenticatorPassword)
	return parsed.String()
}

// WaitReplayed waits until every running replica has replayed the
// primary's current WAL position.
func (s *ReplicaSet) WaitReplayed(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	p, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	var target string
	if err := p.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&target); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Replicas {
		c, err := pgx.Connect(ctx, s.On(r))
		if err != nil {
			continue // stopped by the test
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			var done bool
			if err := c.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", target).Scan(&done); err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica on port %d did not replay %s within 15 s", r.Port(), target)
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.Close(ctx)
	}
}

// Bouncer starts PgBouncer (transaction mode, pool size poolSize) in front
// of the primary with two databases: "owner" logs in as the superuser,
// "rest" as authenticator. It skips the test when pgbouncer is missing,
// unless CI=true, where it fails: CI must run these tests.
func (s *ReplicaSet) Bouncer(t testing.TB, poolSize int) *pgcluster.Bouncer {
	t.Helper()
	return s.BouncerFor(t, s.DB, poolSize)
}

// BouncerFor is Bouncer in front of database db of the primary.
func (s *ReplicaSet) BouncerFor(t testing.TB, db string, poolSize int) *pgcluster.Bouncer {
	t.Helper()
	if _, err := exec.LookPath("pgbouncer"); err != nil {
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(pgcluster.ErrNoPgBouncer)
			}
			t.Skip(pgcluster.ErrNoPgBouncer.Error())
		}
	}
	pw, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	super, _ := pw.User.Password()
	b, err := s.Primary.StartPgBouncer(context.Background(), pgcluster.BouncerOptions{
		Dir: filepath.Join(s.dir, "bouncer-"+randomHex(4)), PoolSize: poolSize,
		Databases: map[string]pgcluster.BouncerLogin{
			"owner": {DB: db, User: "postgres", Password: super},
			"rest":  {DB: db, User: "authenticator", Password: s.AuthenticatorPassword},
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return b
}

func (s *ReplicaSet) stop() {
	for _, r := range s.Replicas {
		_ = r.Stop()
	}
	if s.Primary != nil {
		_ = s.Primary.Stop()
	}
	_ = os.RemoveAll(s.dir)
}

// stopShared stops the shared replica set, if a test started it.
func stopShared() {
	if shared != nil {
		shared.stop()
	}
}

// NewDB makes a fresh migrated database on the primary, dropped at
// cleanup, with a superuser pool on it.
func (s *ReplicaSet) NewDB(t testing.TB) *DB {
	t.Helper()
	ctx := context.Background()
	name := "lbrs_" + randomHex(6)
	admin, err := pgx.Connect(ctx, s.Primary.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	u := s.Primary.URL(name)
	m, err := migrate.New(u)
	if err != nil {
		t.Fatal(err)
	}
	upErr := m.Up()
	_ = m.Close()
	if upErr != nil {
		t.Fatal(upErr)
	}
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		c, err := pgx.Connect(ctx, s.Primary.URL("postgres"))
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	return &DB{Name: name, URL: u, Pool: pool}
}
