package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// LSN is a WAL position, as PostgreSQL's pg_lsn prints it ("16/B374D848").
// Zero means none.
type LSN uint64

// MaxLSN is a position no replica has reached: a read carrying it goes to
// the primary. It stands in when a write's position could not be read.
const MaxLSN = LSN(^uint64(0))

// ParseLSN reads "X/Y" (two hexadecimal halves).
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("db: %q is not a WAL position", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("db: %q is not a WAL position", s)
	}
	return LSN(h<<32 | l), nil
}

// String prints the position as pg_lsn does.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

type readAfterKey struct{}

// WithReadAfter marks ctx's read as needing a server that has replayed the
// WAL up to l (read-your-writes).
func WithReadAfter(ctx context.Context, l LSN) context.Context {
	return context.WithValue(ctx, readAfterKey{}, l)
}

// ReadAfter is the position ctx's read must see; 0 when any healthy
// replica will do.
func ReadAfter(ctx context.Context) LSN {
	l, _ := ctx.Value(readAfterKey{}).(LSN)
	return l
}
