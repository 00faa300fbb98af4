package realtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The Phoenix serializer versions realtime-js speaks (?vsn=): 1.0.0 sends
// JSON objects, 2.0.0 JSON arrays plus binary frames for broadcasts.
const (
	VSN1 = "1.0.0"
	VSN2 = "2.0.0"
)

// Binary frame kinds of the 2.0.0 serializer (realtime-js
// lib/serializer.ts): a client's broadcast push and a server's broadcast.
const (
	kindUserBroadcastPush = 3
	kindUserBroadcast     = 4
	encodingBinary        = 0
	encodingJSON          = 1
)

// Message is one Phoenix message. JoinRef and Ref are nil when null on the
// wire (server pushes carry no ref).
type Message struct {
	JoinRef *string
	Ref     *string
	Topic   string
	Event   string
	Payload json.RawMessage
	// Bin is a user broadcast in the form of the 2.0.0 binary frames:
	// decoded from a binary push whose payload is bytes, or to be sent as
	// a kind 4 frame. On the way out a JSON one (Bin.JSON) goes to 2.0.0
	// clients as a binary frame and to 1.0.0 clients as Payload.
	Bin *BinaryPayload
}

// BinaryPayload is a user broadcast: its event and its payload, raw bytes
// or (JSON set) the JSON text of the user's payload.
type BinaryPayload struct {
	Event string
	Data  []byte
	JSON  bool
}

// Frame is an encoded message: a text frame, or a binary one.
type Frame struct {
	Binary bool
	Data   []byte
}

var errBadFrame = errors.New("malformed message")

// Decode reads one frame from a client speaking vsn.
func Decode(vsn string, binary bool, data []byte) (Message, error) {
	switch {
	case binary && vsn == VSN2:
		return decodeBinaryPush(data)
	case binary:
		return Message{}, fmt.Errorf("%w: binary frames need vsn 2.0.0", errBadFrame)
	case vsn == VSN1:
		return decodeObject(data)
	default:
		return decodeArray(data)
	}
}

func decodeObject(data []byte) (Message, error) {
	var o struct {
		JoinRef json.RawMessage `json:"join_ref"`
		Ref     json.RawMessage `json:"ref"`
		Topic   string          `json:"topic"`
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return Message{}, fmt.Errorf("%w: %w", errBadFrame, err)
	}
	jr, err1 := refOf(o.JoinRef)
	r, err2 := refOf(o.Ref)
	if err := errors.Join(err1, err2); err != nil || o.Topic == "" || o.Event == "" {
		return Message{}, fmt.Errorf("%w: topic, event and string refs are required", errBadFrame)
	}
	return Message{JoinRef: jr, Ref: r, Topic: o.Topic, Event: o.Event, Payload: payloadOrEmpty(o.Payload)}, nil
}

func decodeArray(data []byte) (Message, error) {
	var a []json.RawMessage
	if err := json.Unmarshal(data, &a); err != nil || len(a) != 5 {
		return Message{}, fmt.Errorf("%w: want [join_ref, ref, topic, event, payload]", errBadFrame)
	}
	jr, err1 := refOf(a[0])
	r, err2 := refOf(a[1])
	var topic, event string
	err3 := json.Unmarshal(a[2], &topic)
	err4 := json.Unmarshal(a[3], &event)
	if err := errors.Join(err1, err2, err3, err4); err != nil || topic == "" || event == "" {
		return Message{}, fmt.Errorf("%w: topic, event and string refs are required", errBadFrame)
	}
	return Message{JoinRef: jr, Ref: r, Topic: topic, Event: event, Payload: payloadOrEmpty(a[4])}, nil
}

// refOf reads a ref: a string, a number (older clients) or null.
func refOf(raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return &s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	s = n.String()
	return &s, nil
}

func payloadOrEmpty(p json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(p)) == 0 || string(p) == "null" {
		return json.RawMessage("{}")
	}
	return p
}

// decodeBinaryPush reads kind 3: a header of kind, the lengths of
// join_ref, ref, topic, user event and metadata, and the payload encoding;
// then those strings; then the payload. It becomes the same broadcast a
// text push would be: {type: "broadcast", event, payload}.
func decodeBinaryPush(b []byte) (Message, error) {
	if len(b) < 7 || b[0] != kindUserBroadcastPush {
		return Message{}, fmt.Errorf("%w: unknown binary frame", errBadFrame)
	}
	lens := []int{int(b[1]), int(b[2]), int(b[3]), int(b[4]), int(b[5])}
	enc := b[6]
	off := 7
	parts := make([]string, 5)
	for i, n := range lens {
		if off+n > len(b) {
			return Message{}, fmt.Errorf("%w: binary frame shorter than its header says", errBadFrame)
		}
		parts[i] = string(b[off : off+n])
		off += n
	}
	data := b[off:]
	m := Message{Topic: parts[2], Event: "broadcast"}
	if parts[0] != "" {
		m.JoinRef = &parts[0]
	}
	if parts[1] != "" {
		m.Ref = &parts[1]
	}
	if m.Topic == "" || parts[3] == "" {
		return Message{}, fmt.Errorf("%w: binary frame without topic or event", errBadFrame)
	}
	switch enc {
	case encodingJSON:
		if !json.Valid(data) {
			return Message{}, fmt.Errorf("%w: JSON payload is not JSON", errBadFrame)
		}
		p, _ := json.Marshal(struct {
			Type    string          `json:"type"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}{"broadcast", parts[3], payloadOrEmpty(data)})
		m.Payload = p
	case encodingBinary:
		m.Bin = &BinaryPayload{Event: parts[3], Data: append([]byte(nil), data...)}
		m.Payload = json.RawMessage(`{"type":"broadcast","event":` + strconv.Quote(parts[3]) + `}`)
	default:
		return Message{}, fmt.Errorf("%w: unknown payload encoding %d", errBadFrame, enc)
	}
	return m, nil
}

// Encode writes m for a client speaking vsn. A user broadcast (Bin) goes
// to a 2.0.0 client as a binary frame of kind 4, as Supabase's
// V2Serializer sends every user broadcast, JSON ones included; to a 1.0.0
// client a JSON one is the text Payload, and one of bytes cannot be
// written at all (ok false), as on Supabase.
func Encode(vsn string, m Message) (Frame, bool) {
	if m.Bin != nil {
		if vsn == VSN2 {
			return Frame{Binary: true, Data: encodeBinaryBroadcast(m.Topic, m.Bin)}, true
		}
		if !m.Bin.JSON {
			return Frame{}, false
		}
	}
	payload := payloadOrEmpty(m.Payload)
	if vsn == VSN1 {
		b, _ := json.Marshal(struct {
			JoinRef *string         `json:"join_ref"`
			Ref     *string         `json:"ref"`
			Topic   string          `json:"topic"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}{m.JoinRef, m.Ref, m.Topic, m.Event, payload})
		return Frame{Data: b}, true
	}
	b, _ := json.Marshal([]any{m.JoinRef, m.Ref, m.Topic, m.Event, payload})
	return Frame{Data: b}, true
}

// encodeBinaryBroadcast writes kind 4: kind, the lengths of topic, user
// event and metadata (none), the payload encoding; the strings; the
// payload (bytes, or the user's JSON).
// Names longer than 255 bytes cannot be framed; they are cut, which only a
// client that could not have sent them would notice.
func encodeBinaryBroadcast(topic string, p *BinaryPayload) []byte {
	topic, event := cut255(topic), cut255(p.Event)
	out := make([]byte, 0, 5+len(topic)+len(event)+len(p.Data))
	enc := byte(encodingBinary)
	if p.JSON {
		enc = encodingJSON
	}
	out = append(out, kindUserBroadcast, byte(len(topic)), byte(len(event)), 0, enc)
	out = append(out, topic...)
	out = append(out, event...)
	return append(out, p.Data...)
}

func cut255(s string) string {
	if len(s) > 255 {
		return s[:255]
	}
	return s
}
