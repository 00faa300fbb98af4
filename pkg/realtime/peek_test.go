package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// peekTopic finds the topic where both writers put it, and gives up
// (so the envelope is decoded whole) when it is not there.
func TestPeekTopic(t *testing.T) {
	t.Parallel()
	fromGo, err := json.Marshal(envelope{Kind: "broadcast", Topic: "room:1", Event: "e", Payload: json.RawMessage(`{"x":[1,2]}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		payload string
		topic   string
		ok      bool
	}{
		{string(fromGo), "room:1", true},
		{`{"kind": "broadcast", "event": "e", "topic": "admin:queue", "origin": "db", "payload": {"id": 1}, "private": true}`, "admin:queue", true},
		{`{"payload":{"topic":"inner"},"topic":"outer"}`, "", false},
		{`{"kind":"broadcast","payload":[1],"topic":"late"}`, "", false},
		{`{"topic":7}`, "", false},
		{`{"kind":"broadcast"}`, "", false},
		{`["topic","x"]`, "", false},
		{`{"topic"`, "", false},
		{``, "", false},
		{` { "kind" : "broadcast" ,	"topic" : "a\"b\\c\u00e9" }`, "a\"b\\cé", true},
		{`{"ev\"ent":"x,\"topic\":\"fake\"","topic":"real"}`, "real", true},
		{`{"private":true,"topic":"t"}`, "t", true},
		{`{"topic":"t"`, "t", true}, // the rest is the full decode's to refuse
	} {
		topic, ok := peekTopic([]byte(tc.payload))
		if topic != tc.topic || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.payload, topic, ok, tc.topic, tc.ok)
		}
	}
}

// What realtime.send notifies, read as the bus reads it, has its topic
// where peekTopic looks.
func TestPeekTopicOfRealtimeSend(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN realtime_broadcast"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `SELECT realtime.send('{"nested": {"topic": "no"}, "list": [1]}'::jsonb, 'changed', 'admin:queue', true)`); err != nil {
		t.Fatal(err)
	}
	n, err := conn.Conn().WaitForNotification(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if topic, ok := peekTopic([]byte(n.Payload)); topic != "admin:queue" || !ok {
		t.Fatalf("%s: %q %v", n.Payload, topic, ok)
	}
}

// Wherever peekTopic finds a topic and the envelope decodes, it is the
// envelope's topic. go test runs the seeds; go test -fuzz FuzzPeekTopic
// looks further.
func FuzzPeekTopic(f *testing.F) {
	for _, s := range []string{
		`{"kind":"broadcast","topic":"room:1","private":false,"event":"e","payload":{"x":[1,2]}}`,
		`{"kind": "broadcast", "event": "e", "topic": "admin:queue", "origin": "db", "payload": {"id": 1}, "private": true}`,
		`{"event":"a\\","topic":"b\u0041"}`,
		`{"n":1.5e3,"b":null,"topic":"x"}`,
		`{"topic":"a","topic":"b"}`,
		`{"topic":"a","\u0074opic":"b"}`,
		`{"topic":"a","TOPIC":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		topic, ok := peekTopic(p)
		var env envelope
		if !ok || json.Unmarshal(p, &env) != nil {
			return
		}
		if topicKeys(p) > 1 {
			return // encoding/json takes the last of keys equal but for case or escapes; no writer repeats one
		}
		if env.Topic != topic {
			t.Fatalf("%s: peeked %q, decoded %q", p, topic, env.Topic)
		}
	})
}

// topicKeys counts the top-level keys encoding/json takes for "topic".
func topicKeys(p []byte) int {
	dec := json.NewDecoder(bytes.NewReader(p))
	if _, err := dec.Token(); err != nil {
		return 0
	}
	n := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return n
		}
		if ks, _ := k.(string); strings.EqualFold(ks, "topic") {
			n++
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return n
		}
	}
	return n
}
