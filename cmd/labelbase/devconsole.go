package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
)

// bannerEvery is how many log lines scroll the banner away: about one
// terminal screen. After that many, dev prints the banner again, so the
// invite code is never more than a screen up.
const bannerEvery = 40

// devConsole is what `labelbase dev` shows a person: the log, and the
// banner (URL, invite code, how to get more codes) again whenever the log
// has scrolled it off the screen.
type devConsole struct {
	out io.Writer
	// log is dev's logger, counting the lines it writes.
	log *slog.Logger

	mu     sync.Mutex
	text   string // the banner; empty until the gateway listens
	scroll int    // log lines since the banner was last printed
}

func newDevConsole(out io.Writer, log *slog.Logger) *devConsole {
	c := &devConsole{out: out}
	c.log = slog.New(&countingHandler{Handler: log.Handler(), c: c})
	return c
}

// banner prints the banner and keeps it for printing again.
func (c *devConsole) banner(addr net.Addr, code string, inbox bool) {
	var b bytes.Buffer
	devBanner(&b, addr, code, inbox)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.text, c.scroll = b.String(), 0
	_, _ = io.WriteString(c.out, c.text)
}

// logged counts one line written to the console.
func (c *devConsole) logged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.text == "" {
		return
	}
	if c.scroll++; c.scroll >= bannerEvery {
		c.scroll = 0
		_, _ = io.WriteString(c.out, c.text)
	}
}

// countingHandler tells its console about every record it writes.
type countingHandler struct {
	slog.Handler
	c *devConsole
}

func (h *countingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	h.c.logged()
	return err
}

func (h *countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &countingHandler{Handler: h.Handler.WithAttrs(as), c: h.c}
}

func (h *countingHandler) WithGroup(name string) slog.Handler {
	return &countingHandler{Handler: h.Handler.WithGroup(name), c: h.c}
}

// selfCommand is how to run this binary again from the same directory, for
// the banner's hint: the path it was started by (./bin/labelbase under
// `go tool task run`), or `go run ./cmd/labelbase` for a binary that `go
// run` built in a temporary directory.
func selfCommand() string {
	arg0 := os.Args[0]
	if strings.Contains(arg0, "go-build") {
		return "go run ./cmd/labelbase"
	}
	return arg0
}
