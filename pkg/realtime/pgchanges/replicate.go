package pgchanges

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// The replication protocol and pgoutput's messages come from
// github.com/jackc/pglogrepl: a small package (three files, built on the
// pgconn we already use) for a binary protocol we would otherwise write
// and test ourselves.

// replicate streams the publication's committed changes from a temporary
// slot (dropped by the server when the session ends) and publishes each
// on the Bus at its commit, in commit order. Temporary means at-most-once:
// changes committed while no leader streams are not delivered later, and
// no WAL is kept for an absent consumer.
func (s *Service) replicate(ctx context.Context, lockConn *pgx.Conn) error {
	cfg, err := pgconn.ParseConfig(s.cfg.DirectURL)
	if err != nil {
		return fmt.Errorf("pgchanges: %w", err)
	}
	cfg.RuntimeParams["replication"] = "database"
	// Text output of timestamps in ISO form and UTC, which values.go reads.
	cfg.RuntimeParams["DateStyle"] = "ISO, YMD"
	cfg.RuntimeParams["TimeZone"] = "UTC"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("pgchanges: replication connection: %w", err)
	}
	defer closeWithin(ctx, conn.Close)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	slot := "labelbase_realtime_" + hex.EncodeToString(suffix)
	s.slot.Store(slot)
	if _, err := pglogrepl.CreateReplicationSlot(ctx, conn, slot, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT"}); err != nil {
		return fmt.Errorf("pgchanges: create slot: %w", err)
	}
	args := []string{"proto_version '1'", "publication_names '" + s.cfg.Publication + "'"}
	if err := pglogrepl.StartReplication(ctx, conn, slot, 0, pglogrepl.StartReplicationOptions{PluginArgs: args}); err != nil {
		return fmt.Errorf("pgchanges: start replication: %w", err)
	}
	s.leading.Store(true)
	defer s.leading.Store(false)
	d := newDecoder(s.cfg.Pool)
	return s.stream(ctx, conn, lockConn, d)
}

// stream is the receive loop: WAL data goes to the decoder, each commit
// publishes its changes, and every standbyInterval the position is
// confirmed and the lock session checked.
func (s *Service) stream(ctx context.Context, conn *pgconn.PgConn, lockConn *pgx.Conn, d *decoder) error {
	var flushed pglogrepl.LSN
	next := time.Now().Add(standbyInterval)
	for {
		if time.Now().After(next) {
			// The lock session's answer also says it is alive.
			_, tables, err := s.published(ctx, lockConn)
			if err != nil {
				return fmt.Errorf("pgchanges: leader lock session lost: %w", err)
			}
			if !tables {
				return errNothingPublished
			}
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: flushed}); err != nil {
				return fmt.Errorf("pgchanges: standby status: %w", err)
			}
			next = time.Now().Add(standbyInterval)
		}
		rctx, cancel := context.WithDeadline(ctx, next)
		msg, err := conn.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if pgconn.Timeout(err) && ctx.Err() == nil {
				continue
			}
			return fmt.Errorf("pgchanges: receive: %w", err)
		}
		switch msg := msg.(type) {
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("pgchanges: replication: %s", msg.Message)
		case *pgproto3.CopyData:
			lsn, reply, err := s.handleCopyData(ctx, d, msg.Data)
			if err != nil {
				return err
			}
			if lsn > flushed {
				flushed = lsn
			}
			if reply {
				next = time.Time{}
			}
		}
	}
}

// handleCopyData processes one CopyData message. It returns the position
// that may be confirmed (a commit's end, or a keepalive's WAL end when
// nothing is pending) and whether the server asked for a reply.
func (s *Service) handleCopyData(ctx context.Context, d *decoder, data []byte) (pglogrepl.LSN, bool, error) {
	if len(data) == 0 {
		return 0, false, nil
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return 0, false, fmt.Errorf("pgchanges: keepalive: %w", err)
		}
		if d.inTx {
			return 0, k.ReplyRequested, nil
		}
		return k.ServerWALEnd, k.ReplyRequested, nil
	case pglogrepl.XLogDataByteID:
		x, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return 0, false, fmt.Errorf("pgchanges: xlog data: %w", err)
		}
		done, end, err := d.decode(ctx, x.WALData)
		if err != nil {
			return 0, false, err
		}
		if done != nil {
			s.publish(ctx, done)
			return end, false, nil
		}
	}
	return 0, false, nil
}

// publish sends one transaction's changes on the Bus, in order. A change
// the Bus refuses is logged and lost (at-most-once), never retried out of
// order.
func (s *Service) publish(ctx context.Context, changes []*change) {
	for _, c := range changes {
		b, err := c.encode()
		if err == nil {
			err = s.cfg.Bus.Publish(ctx, busChannel, b)
		}
		if err != nil {
			s.log.Warn("postgres_changes: change not published", "schema", c.Schema, "table", c.Table, "err", err)
		}
	}
}
