package pgchanges

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgxpool"
)

// relation is what the leader knows about a published table: pgoutput's
// Relation message plus, from the catalog, type names, the primary key and
// whether RLS is on.
type relation struct {
	schema, table string
	columns       []column
	rls           bool
	checkedAt     time.Time
}

// rlsTTL is how long a table's RLS flag is trusted before it is read
// again: ALTER TABLE … ENABLE ROW LEVEL SECURITY takes effect within it.
var rlsTTL = 5 * time.Second

// decoder turns pgoutput messages into changes, one transaction at a time.
type decoder struct {
	pool    *pgxpool.Pool
	rels    map[uint32]*relation
	inTx    bool
	commit  time.Time
	xid     uint32
	pending []*change
}

func newDecoder(pool *pgxpool.Pool) *decoder {
	return &decoder{pool: pool, rels: map[uint32]*relation{}}
}

// decode consumes one message. At a commit it returns the transaction's
// changes (possibly none, then an empty non-nil slice) and the position
// after it.
func (d *decoder) decode(ctx context.Context, wal []byte) ([]*change, pglogrepl.LSN, error) {
	msg, err := pglogrepl.Parse(wal)
	if err != nil {
		return nil, 0, fmt.Errorf("pgchanges: parse pgoutput: %w", err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		return nil, 0, d.relationMessage(ctx, m)
	case *pglogrepl.BeginMessage:
		d.inTx, d.commit, d.xid, d.pending = true, m.CommitTime, m.Xid, nil
	case *pglogrepl.CommitMessage:
		out := d.pending
		if out == nil {
			out = []*change{}
		}
		d.inTx, d.pending = false, nil
		return out, m.TransactionEndLSN, nil
	case *pglogrepl.InsertMessage:
		return nil, 0, d.add(ctx, m.RelationID, "INSERT", nil, 0, m.Tuple)
	case *pglogrepl.UpdateMessage:
		return nil, 0, d.add(ctx, m.RelationID, "UPDATE", m.OldTuple, m.OldTupleType, m.NewTuple)
	case *pglogrepl.DeleteMessage:
		return nil, 0, d.add(ctx, m.RelationID, "DELETE", m.OldTuple, m.OldTupleType, nil)
	}
	return nil, 0, nil
}

func (d *decoder) add(ctx context.Context, relID uint32, kind string, old *pglogrepl.TupleData, oldType uint8, new *pglogrepl.TupleData) error {
	rel, ok := d.rels[relID]
	if !ok {
		return fmt.Errorf("pgchanges: change for unknown relation %d", relID)
	}
	if time.Since(rel.checkedAt) > rlsTTL {
		if err := d.refreshRLS(ctx, relID, rel); err != nil {
			return err
		}
	}
	c := &change{Schema: rel.schema, Table: rel.table, Kind: kind, Columns: rel.columns, RLS: rel.rls, Xid: d.xid,
		Commit: d.commit.UTC().Format("2006-01-02T15:04:05.000Z")}
	if new != nil {
		c.New = tupleValues(new, len(rel.columns))
	}
	if old != nil {
		c.Old = tupleValues(old, len(rel.columns))
		if oldType == pglogrepl.UpdateMessageTupleTypeKey {
			c.OldKeyOnly = true
			c.Old = keyOnly(c, c.Old)
		}
	}
	if kind == "UPDATE" && c.Old != nil {
		// An unchanged TOAST value is in the old row when the table is
		// REPLICA IDENTITY FULL.
		for i, v := range c.New {
			if v.Missing && !c.Old[i].Missing {
				c.New[i] = c.Old[i]
			}
		}
	}
	d.pending = append(d.pending, c)
	return nil
}

// tupleValues reads a tuple's text values. Binary never occurs: the
// stream is started without the binary option.
func tupleValues(t *pglogrepl.TupleData, n int) []value {
	out := make([]value, n)
	for i := range out {
		if i >= len(t.Columns) {
			out[i] = value{Missing: true}
			continue
		}
		switch col := t.Columns[i]; col.DataType {
		case pglogrepl.TupleDataTypeNull:
			out[i] = value{Null: true}
		case pglogrepl.TupleDataTypeText:
			out[i] = value{Text: string(col.Data)}
		default:
			out[i] = value{Missing: true}
		}
	}
	return out
}

// relationMessage records a table's shape, reading type names, primary
// key and RLS from the catalog (once per Relation message, which the
// server sends again after any change to the table).
func (d *decoder) relationMessage(ctx context.Context, m *pglogrepl.RelationMessage) error {
	rel := &relation{schema: m.Namespace, table: m.RelationName}
	oids := make([]uint32, len(m.Columns))
	names := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		oids[i], names[i] = c.DataType, c.Name
	}
	var types []string
	var keys []bool
	err := d.pool.QueryRow(ctx, `
		SELECT array(SELECT coalesce(t.typname, 'unknown') FROM unnest($2::oid[]) WITH ORDINALITY u(oid, n)
		              LEFT JOIN pg_type t ON t.oid = u.oid ORDER BY u.n),
		       array(SELECT coalesce(u.name = ANY (SELECT a.attname FROM pg_index i
		                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
		                     WHERE i.indrelid = $1 AND i.indisprimary), false)
		               FROM unnest($3::text[]) WITH ORDINALITY u(name, n) ORDER BY u.n),
		       coalesce((SELECT relrowsecurity FROM pg_class WHERE oid = $1), false)`,
		m.RelationID, oids, names).Scan(&types, &keys, &rel.rls)
	if err != nil {
		return fmt.Errorf("pgchanges: relation %s.%s: %w", m.Namespace, m.RelationName, err)
	}
	for i := range m.Columns {
		rel.columns = append(rel.columns, column{Name: names[i], Type: types[i], Key: keys[i]})
	}
	rel.checkedAt = time.Now()
	d.rels[m.RelationID] = rel
	return nil
}

func (d *decoder) refreshRLS(ctx context.Context, relID uint32, rel *relation) error {
	if err := d.pool.QueryRow(ctx, "SELECT coalesce((SELECT relrowsecurity FROM pg_class WHERE oid = $1), false)",
		relID).Scan(&rel.rls); err != nil {
		return fmt.Errorf("pgchanges: relation %s.%s: %w", rel.schema, rel.table, err)
	}
	rel.checkedAt = time.Now()
	return nil
}
