package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
)

func TestReplicaSettings(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@pooler:6432/db", "JWT_SECRET": secret}
	c, err := config.Load(env(base))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Replicas
	if len(r.URLs) != 0 || r.MaxLagBytes != config.DefaultMaxLagBytes || r.CheckInterval != 500*time.Millisecond ||
		r.ReadYourWritesWindow != 10*time.Second || r.DirectURL != "" || r.Gateways != 1 || c.DirectOrPrimary() != base["DATABASE_URL"] {
		t.Errorf("defaults: %+v", r)
	}
	with := func(extra map[string]string) (*config.Config, error) {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return config.Load(env(m))
	}
	c, err = with(map[string]string{"DATABASE_REPLICA_URLS": " postgres://r1/db , postgres://r2/db ", "DATABASE_DIRECT_URL": "postgres://u@primary/db",
		"REST_DATABASE_URL": "postgres://authenticator@pooler:6432/db", "DB_GATEWAYS": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Replicas.URLs) != 2 || c.Replicas.URLs[1] != "postgres://r2/db" || c.DirectOrPrimary() != "postgres://u@primary/db" || c.Replicas.Gateways != 3 {
		t.Errorf("parsed: %+v", c.Replicas)
	}
	for name, tc := range map[string]struct {
		extra map[string]string
		want  string
	}{
		"bad replica URL":         {map[string]string{"DATABASE_REPLICA_URLS": "postgres://ok/db,mysql://x/db"}, "DATABASE_REPLICA_URLS: entry 2"},
		"bad direct URL":          {map[string]string{"DATABASE_DIRECT_URL": "http://x"}, "DATABASE_DIRECT_URL"},
		"negative lag":            {map[string]string{"REPLICA_MAX_LAG_BYTES": "-1"}, "REPLICA_MAX_LAG_BYTES"},
		"lag not a number":        {map[string]string{"REPLICA_MAX_LAG_BYTES": "1MB"}, "REPLICA_MAX_LAG_BYTES must be a whole number"},
		"slow checks":             {map[string]string{"REPLICA_CHECK_INTERVAL": "5s"}, "REPLICA_CHECK_INTERVAL"},
		"window too long":         {map[string]string{"READ_YOUR_WRITES_WINDOW": "1h"}, "READ_YOUR_WRITES_WINDOW"},
		"no gateways":             {map[string]string{"DB_GATEWAYS": "0"}, "DB_GATEWAYS"},
		"direct equals pooled":    {map[string]string{"DATABASE_DIRECT_URL": base["DATABASE_URL"], "REST_DATABASE_URL": "postgres://authenticator@p/db"}, "must not equal DATABASE_URL"},
		"pooler without REST URL": {map[string]string{"DATABASE_DIRECT_URL": "postgres://u@primary/db"}, "REST_DATABASE_URL is required"},
	} {
		if _, err := with(tc.extra); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestDirectDatabaseURL(t *testing.T) {
	t.Parallel()
	if u, err := config.DirectDatabaseURL(env(nil)); u != "" || err != nil {
		t.Errorf("unset: %q %v", u, err)
	}
	if u, err := config.DirectDatabaseURL(env(map[string]string{"DATABASE_DIRECT_URL": "postgres://p/db"})); u != "postgres://p/db" || err != nil {
		t.Errorf("set: %q %v", u, err)
	}
	if _, err := config.DirectDatabaseURL(env(map[string]string{"DATABASE_DIRECT_URL": "ftp://p/db"})); err == nil {
		t.Error("a non-postgres URL was accepted")
	}
}
