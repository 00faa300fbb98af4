package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
)

func TestRealtimeSettings(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret}
	c, err := config.Load(env(base))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Realtime{Enabled: true, MaxConnections: 10000, MaxChannelsPerConnection: 100, MaxJoinsPerSecond: 20,
		MaxEventsPerSecond: 100, MaxMessageBytes: 1 << 20, IdleTimeout: time.Minute, SendQueue: 256,
		PresenceHeartbeat: time.Second, PresenceTimeout: 5 * time.Second}
	if c.Realtime != want {
		t.Fatalf("defaults %+v, want %+v", c.Realtime, want)
	}
	bad := map[string]string{
		"REALTIME_MAX_CONNECTIONS":             "0",
		"REALTIME_MAX_CHANNELS_PER_CONNECTION": "many",
		"REALTIME_MAX_MESSAGE_BYTES":           "10",
		"REALTIME_IDLE_TIMEOUT":                "10ms",
		"REALTIME_PRESENCE_TIMEOUT":            "1s",
		"REALTIME_ENABLED":                     "perhaps",
	}
	for k, v := range bad {
		vars := map[string]string{k: v}
		for bk, bv := range base {
			vars[bk] = bv
		}
		if _, err := config.Load(env(vars)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v, want an error naming it", k, v, err)
		}
	}
}
