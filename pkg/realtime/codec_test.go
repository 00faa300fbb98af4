package realtime

import (
	"bytes"
	"encoding/json"
	"testing"
)

func ptr(s string) *string { return &s }

// The vectors are the frames realtime-js 2.x writes and reads
// (lib/serializer.ts), built by hand from its layout.
func TestDecodeTextFrames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, vsn, in string
		want          Message
	}{
		{"v1 object", VSN1, `{"topic":"realtime:room","event":"phx_join","payload":{"config":{}},"ref":"1","join_ref":"1"}`,
			Message{JoinRef: ptr("1"), Ref: ptr("1"), Topic: "realtime:room", Event: "phx_join", Payload: json.RawMessage(`{"config":{}}`)}},
		{"v1 heartbeat, null join_ref", VSN1, `{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7","join_ref":null}`,
			Message{Ref: ptr("7"), Topic: "phoenix", Event: "heartbeat", Payload: json.RawMessage(`{}`)}},
		{"v2 array", VSN2, `["3","4","realtime:room","broadcast",{"type":"broadcast","event":"e","payload":{"a":1}}]`,
			Message{JoinRef: ptr("3"), Ref: ptr("4"), Topic: "realtime:room", Event: "broadcast",
				Payload: json.RawMessage(`{"type":"broadcast","event":"e","payload":{"a":1}}`)}},
		{"v2 numeric refs", VSN2, `[1,2,"phoenix","heartbeat",null]`,
			Message{JoinRef: ptr("1"), Ref: ptr("2"), Topic: "phoenix", Event: "heartbeat", Payload: json.RawMessage(`{}`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.vsn, false, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if deref(got.JoinRef) != deref(tc.want.JoinRef) || (got.JoinRef == nil) != (tc.want.JoinRef == nil) ||
				deref(got.Ref) != deref(tc.want.Ref) || got.Topic != tc.want.Topic || got.Event != tc.want.Event ||
				!bytes.Equal(got.Payload, tc.want.Payload) {
				t.Fatalf("got %+v (payload %s), want %+v", got, got.Payload, tc.want)
			}
		})
	}
}

func TestDecodeRejectsBadFrames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, vsn string
		binary    bool
		in        []byte
	}{
		{"v1 not JSON", VSN1, false, []byte(`{`)},
		{"v1 array", VSN1, false, []byte(`["1","1","t","e",{}]`)},
		{"v1 no topic", VSN1, false, []byte(`{"event":"x","payload":{}}`)},
		{"v2 four elements", VSN2, false, []byte(`["1","1","t","e"]`)},
		{"v2 object", VSN2, false, []byte(`{"topic":"t","event":"e"}`)},
		{"v2 topic not a string", VSN2, false, []byte(`["1","1",5,"e",{}]`)},
		{"binary on v1", VSN1, true, []byte{3, 0, 0, 1, 1, 0, 1, 't', 'e', '{', '}'}},
		{"unknown kind", VSN2, true, []byte{9, 0, 0, 0, 0, 0, 0}},
		{"short header", VSN2, true, []byte{3, 0, 0}},
		{"lengths past the end", VSN2, true, []byte{3, 0, 0, 200, 1, 0, 1, 't'}},
		{"JSON encoding, not JSON", VSN2, true, append([]byte{3, 0, 0, 1, 1, 0, 1, 't', 'e'}, "{nope"...)},
		{"unknown encoding", VSN2, true, []byte{3, 0, 0, 1, 1, 0, 7, 't', 'e'}},
		{"no event", VSN2, true, []byte{3, 0, 0, 1, 0, 0, 1, 't', '{', '}'}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if m, err := Decode(tc.vsn, tc.binary, tc.in); err == nil {
				t.Fatalf("decoded %+v, want an error", m)
			}
		})
	}
}

// userBroadcastPush builds kind 3 as realtime-js's
// _encodeUserBroadcastPush does.
func userBroadcastPush(joinRef, ref, topic, event, meta string, enc byte, payload []byte) []byte {
	b := []byte{3, byte(len(joinRef)), byte(len(ref)), byte(len(topic)), byte(len(event)), byte(len(meta)), enc}
	b = append(b, joinRef+ref+topic+event+meta...)
	return append(b, payload...)
}

func TestDecodeBinaryPush(t *testing.T) {
	t.Parallel()
	m, err := Decode(VSN2, true, userBroadcastPush("1", "5", "realtime:room", "cursor", "", encodingJSON, []byte(`{"x":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	if deref(m.JoinRef) != "1" || deref(m.Ref) != "5" || m.Topic != "realtime:room" || m.Event != "broadcast" || m.Bin != nil {
		t.Fatalf("got %+v", m)
	}
	if want := `{"type":"broadcast","event":"cursor","payload":{"x":1}}`; string(m.Payload) != want {
		t.Fatalf("payload %s, want %s", m.Payload, want)
	}
	// Metadata (allowed keys) is skipped; binary bytes stay bytes.
	m, err = Decode(VSN2, true, userBroadcastPush("", "", "realtime:room", "blob", `{"k":1}`, encodingBinary, []byte{0, 1, 2, 255}))
	if err != nil {
		t.Fatal(err)
	}
	if m.JoinRef != nil || m.Ref != nil || m.Bin == nil || m.Bin.Event != "blob" || !bytes.Equal(m.Bin.Data, []byte{0, 1, 2, 255}) {
		t.Fatalf("got %+v", m)
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	m := Message{JoinRef: ptr("1"), Ref: ptr("2"), Topic: "realtime:room", Event: "phx_reply", Payload: json.RawMessage(`{"status":"ok","response":{}}`)}
	f, ok := Encode(VSN1, m)
	if want := `{"join_ref":"1","ref":"2","topic":"realtime:room","event":"phx_reply","payload":{"status":"ok","response":{}}}`; !ok || f.Binary || string(f.Data) != want {
		t.Fatalf("v1: %s", f.Data)
	}
	f, ok = Encode(VSN2, m)
	if want := `["1","2","realtime:room","phx_reply",{"status":"ok","response":{}}]`; !ok || f.Binary || string(f.Data) != want {
		t.Fatalf("v2: %s", f.Data)
	}
	f, _ = Encode(VSN2, Message{Topic: "realtime:room", Event: "broadcast", Payload: json.RawMessage(`{"a":1}`)})
	if want := `[null,null,"realtime:room","broadcast",{"a":1}]`; string(f.Data) != want {
		t.Fatalf("v2 push: %s", f.Data)
	}
	// Kind 4: kind, topic length, event length, metadata length, encoding.
	bin := Message{Topic: "realtime:r", Event: "broadcast", Bin: &BinaryPayload{Event: "ev", Data: []byte{9, 8}}}
	f, ok = Encode(VSN2, bin)
	want := append([]byte{4, 10, 2, 0, 0}, "realtime:rev"...)
	want = append(want, 9, 8)
	if !ok || !f.Binary || !bytes.Equal(f.Data, want) {
		t.Fatalf("binary: % x, want % x", f.Data, want)
	}
	if _, ok := Encode(VSN1, bin); ok {
		t.Fatal("a binary broadcast was encoded for a 1.0.0 client")
	}
	// A JSON user broadcast: kind 4 with encoding 1 for 2.0.0 (Supabase's
	// V2Serializer.fastlane! of a UserBroadcast), the text form for 1.0.0.
	js := Message{Topic: "realtime:r", Event: "broadcast", Payload: json.RawMessage(`{"type":"broadcast","event":"ev","payload":{"a":1}}`),
		Bin: &BinaryPayload{Event: "ev", Data: []byte(`{"a":1}`), JSON: true}}
	f, ok = Encode(VSN2, js)
	want = append([]byte{4, 10, 2, 0, 1}, `realtime:rev{"a":1}`...)
	if !ok || !f.Binary || !bytes.Equal(f.Data, want) {
		t.Fatalf("JSON broadcast for 2.0.0: % x, want % x", f.Data, want)
	}
	f, ok = Encode(VSN1, js)
	if want := `{"join_ref":null,"ref":null,"topic":"realtime:r","event":"broadcast","payload":{"type":"broadcast","event":"ev","payload":{"a":1}}}`; !ok || f.Binary || string(f.Data) != want {
		t.Fatalf("JSON broadcast for 1.0.0: %s", f.Data)
	}
}
