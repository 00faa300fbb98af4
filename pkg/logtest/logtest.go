// Package logtest is a log sink for tests: a gateway, a scheduler or a
// command writes its logs from goroutines of its own while the test reads
// them. Test code only (depguard keeps it out of production code).
package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer that goroutines may write to while a test
// reads it. The zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Take returns the lines written since the last Take and empties the
// buffer ([""] when nothing was written).
func (b *Buffer) Take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := strings.Split(strings.TrimSpace(b.buf.String()), "\n")
	b.buf.Reset()
	return out
}
