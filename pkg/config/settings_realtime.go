package config

import "time"

// Realtime is the settings group of /realtime/v1 (the Phoenix socket,
// broadcast, presence, postgres_changes). The defaults let one gateway
// hold well over 1,000 sockets; the per-socket limits follow Supabase's
// names for the same ideas.
type Realtime struct {
	Enabled                  bool
	MaxConnections           int
	MaxChannelsPerConnection int
	MaxJoinsPerSecond        int
	MaxEventsPerSecond       int
	MaxMessageBytes          int
	IdleTimeout              time.Duration
	SendQueue                int
	PresenceHeartbeat        time.Duration
	PresenceTimeout          time.Duration
}

// realtimeGroup: /realtime/v1.
var realtimeGroup = group{
	title: "Realtime",
	doc:   "The Phoenix socket at `/realtime/v1` (see [realtime.md](realtime.md)).",
	settings: []setting{
		boolean("REALTIME_ENABLED", true, func(c *Config) *bool { return &c.Realtime.Enabled },
			"Mount `/realtime/v1` and start the cross-gateway bus."),
		integer("REALTIME_MAX_CONNECTIONS", 10000, func(c *Config) *int { return &c.Realtime.MaxConnections },
			"Sockets one gateway holds; the next upgrade is refused with 429."),
		integer("REALTIME_MAX_CHANNELS_PER_CONNECTION", 100, func(c *Config) *int { return &c.Realtime.MaxChannelsPerConnection },
			"Channels one socket may join (Supabase's default)."),
		integer("REALTIME_MAX_JOINS_PER_SECOND", 20, func(c *Config) *int { return &c.Realtime.MaxJoinsPerSecond },
			"`phx_join` pushes one socket may send a second."),
		integer("REALTIME_MAX_EVENTS_PER_SECOND", 100, func(c *Config) *int { return &c.Realtime.MaxEventsPerSecond },
			"Messages one socket may send a second, heartbeats included; past it the socket is closed (1008)."),
		integer("REALTIME_MAX_MESSAGE_BYTES", 1<<20, func(c *Config) *int { return &c.Realtime.MaxMessageBytes },
			"Largest frame or HTTP broadcast body read; at least 1024."),
		duration("REALTIME_IDLE_TIMEOUT", 60*time.Second, func(c *Config) *time.Duration { return &c.Realtime.IdleTimeout },
			"A socket that sent nothing, heartbeats included, for this long is closed (realtime-js beats every 25 s); at least `1s`."),
		integer("REALTIME_SEND_QUEUE", 256, func(c *Config) *int { return &c.Realtime.SendQueue },
			"Outgoing frames queued per socket; a client that reads slower is disconnected rather than buffered without bound."),
		duration("REALTIME_PRESENCE_HEARTBEAT", time.Second, func(c *Config) *time.Duration { return &c.Realtime.PresenceHeartbeat },
			"How often a gateway marks itself alive for presence."),
		duration("REALTIME_PRESENCE_TIMEOUT", 5*time.Second, func(c *Config) *time.Duration { return &c.Realtime.PresenceTimeout },
			"Silence after which a gateway's presences leave; at least twice `REALTIME_PRESENCE_HEARTBEAT`."),
	},
	validate: func(c *Config, p *parser) {
		r := c.Realtime
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
	},
}
