package server

import (
	"io"
	"sync"
)

// LogOutput is the process's log stream (stderr) with one addition: the
// access log's writer can hold it while it writes the lines queued so far
// and then flush them in one write. Under load the queue holds several
// lines whenever the writer wakes, and one write per line was ~2.5 % of the
// gateway's CPU in a profile of member PK reads (the system call, not the
// formatting); a batch costs one.
//
// While nothing holds it, a write goes straight through, so every other
// line (errors, warnings, startup) reaches the stream when it is logged, as
// with stderr itself. A line logged by another goroutine during a hold
// waits for the flush at the hold's end, microseconds later, and keeps its
// order with the access lines.
type LogOutput struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	held bool
}

// maxLogBatch bounds what a hold buffers: a flood of lines is written in
// pieces of about this size instead of growing the buffer.
const maxLogBatch = 64 << 10

// NewLogOutput writes the log to w.
func NewLogOutput(w io.Writer) *LogOutput { return &LogOutput{w: w} }

// Write writes p, or buffers it while the output is held. slog's handlers
// call it once per record.
func (o *LogOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.held {
		return o.w.Write(p)
	}
	o.buf = append(o.buf, p...)
	if len(o.buf) >= maxLogBatch {
		if err := o.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// hold makes writes buffer until release. A nil output holds nothing.
func (o *LogOutput) hold() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.held = true
	o.mu.Unlock()
}

// release writes what the hold buffered, in one write, and lets writes
// through again.
func (o *LogOutput) release() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.held = false
	// A failed write of the log has nowhere to be reported: slog drops
	// its handlers' write errors too.
	_ = o.flushLocked()
	o.mu.Unlock()
}

func (o *LogOutput) flushLocked() error {
	if len(o.buf) == 0 {
		return nil
	}
	_, err := o.w.Write(o.buf)
	if cap(o.buf) > maxLogBatch*2 {
		o.buf = nil // a burst's buffer is not kept for the quiet after it
	} else {
		o.buf = o.buf[:0]
	}
	return err
}
