package config

import "time"

// Realtime is the settings group of /realtime/v1 (the Phoenix socket,
// broadcast, presence). The defaults let one gateway hold well over 1,000
// sockets; the per-socket limits follow Supabase's names for the same idea.
type Realtime struct {
	// Enabled mounts /realtime/v1 (REALTIME_ENABLED, default true).
	Enabled bool
	// MaxConnections caps the sockets one gateway holds; the next upgrade
	// is refused with 429 (REALTIME_MAX_CONNECTIONS, default 10000).
	MaxConnections int
	// MaxChannelsPerConnection caps the channels one socket joins
	// (REALTIME_MAX_CHANNELS_PER_CONNECTION, default 100, Supabase's).
	MaxChannelsPerConnection int
	// MaxJoinsPerSecond caps one socket's phx_join pushes a second
	// (REALTIME_MAX_JOINS_PER_SECOND, default 20).
	MaxJoinsPerSecond int
	// MaxEventsPerSecond caps one socket's messages a second, heartbeats
	// included; past it the socket is closed (REALTIME_MAX_EVENTS_PER_SECOND,
	// default 100).
	MaxEventsPerSecond int
	// MaxMessageBytes is the largest frame or HTTP broadcast body read
	// (REALTIME_MAX_MESSAGE_BYTES, default 1 MiB).
	MaxMessageBytes int
	// IdleTimeout closes a socket that sent nothing, heartbeats included,
	// for this long; realtime-js beats every 25 s (REALTIME_IDLE_TIMEOUT,
	// default 60s).
	IdleTimeout time.Duration
	// SendQueue is how many outgoing frames wait per socket; a client that
	// reads slower than that is disconnected rather than buffered without
	// bound (REALTIME_SEND_QUEUE, default 256).
	SendQueue int
	// PresenceHeartbeat is how often a gateway says it is alive; a gateway
	// silent for PresenceTimeout has its presences leave
	// (REALTIME_PRESENCE_HEARTBEAT, default 1s; REALTIME_PRESENCE_TIMEOUT,
	// default 5s).
	PresenceHeartbeat time.Duration
	PresenceTimeout   time.Duration
}

func loadRealtime(p *parser) Realtime {
	r := Realtime{
		Enabled:                  p.boolean("REALTIME_ENABLED", true),
		MaxConnections:           p.integer("REALTIME_MAX_CONNECTIONS", 10000),
		MaxChannelsPerConnection: p.integer("REALTIME_MAX_CHANNELS_PER_CONNECTION", 100),
		MaxJoinsPerSecond:        p.integer("REALTIME_MAX_JOINS_PER_SECOND", 20),
		MaxEventsPerSecond:       p.integer("REALTIME_MAX_EVENTS_PER_SECOND", 100),
		MaxMessageBytes:          p.integer("REALTIME_MAX_MESSAGE_BYTES", 1<<20),
		IdleTimeout:              p.duration("REALTIME_IDLE_TIMEOUT", 60*time.Second),
		SendQueue:                p.integer("REALTIME_SEND_QUEUE", 256),
		PresenceHeartbeat:        p.duration("REALTIME_PRESENCE_HEARTBEAT", time.Second),
		PresenceTimeout:          p.duration("REALTIME_PRESENCE_TIMEOUT", 5*time.Second),
	}
	for _, n := range []struct {
		name string
		v    int
	}{
		{"REALTIME_MAX_CONNECTIONS", r.MaxConnections},
		{"REALTIME_MAX_CHANNELS_PER_CONNECTION", r.MaxChannelsPerConnection},
		{"REALTIME_MAX_JOINS_PER_SECOND", r.MaxJoinsPerSecond},
		{"REALTIME_MAX_EVENTS_PER_SECOND", r.MaxEventsPerSecond},
		{"REALTIME_SEND_QUEUE", r.SendQueue},
	} {
		if n.v < 1 {
			p.fail("%s must be at least 1, got %d", n.name, n.v)
		}
	}
	if r.MaxMessageBytes < 1024 {
		p.fail("REALTIME_MAX_MESSAGE_BYTES must be at least 1024, got %d", r.MaxMessageBytes)
	}
	if r.IdleTimeout < time.Second {
		p.fail("REALTIME_IDLE_TIMEOUT must be at least 1s, got %s", r.IdleTimeout)
	}
	if r.PresenceHeartbeat <= 0 || r.PresenceTimeout < 2*r.PresenceHeartbeat {
		p.fail("REALTIME_PRESENCE_TIMEOUT (%s) must be at least twice REALTIME_PRESENCE_HEARTBEAT (%s), which must be positive",
			r.PresenceTimeout, r.PresenceHeartbeat)
	}
	return r
}
