package requestid_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/labelbase/labelbase/pkg/requestid"
)

func TestHandlerAddsTheRequestID(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(requestid.NewHandler(slog.NewJSONHandler(&buf, nil))).With("component", "rest")
	ctx := requestid.With(context.Background(), "abc123")

	log.WarnContext(ctx, "retrying", "n", 1)
	log.Info("no request")
	log.WithGroup("g").InfoContext(ctx, "grouped", "x", 2)

	var lines []map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	if lines[0]["request_id"] != "abc123" || lines[0]["component"] != "rest" {
		t.Errorf("line with a request context: %v", lines[0])
	}
	if _, ok := lines[1]["request_id"]; ok {
		t.Errorf("line without a request context has a request id: %v", lines[1])
	}
	if g, _ := lines[2]["g"].(map[string]any); g["request_id"] != "abc123" {
		t.Errorf("grouped line: %v", lines[2])
	}
	if got := requestid.From(context.Background()); got != "" {
		t.Errorf("From(empty) = %q", got)
	}
}
