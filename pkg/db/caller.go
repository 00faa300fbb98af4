package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetupSQL switches role and publishes the request to SQL, all
// transaction-local and in one statement, as PostgREST does. The RLS
// tests and the scale report send exactly this statement with
// Caller.SetupArgs; the REST gateway sends SetupFor's shape of it, which
// sets the same values and leaves out only what nothing reads, so a policy
// that reads one of these settings sees the same thing everywhere.
//
// The last setting makes a read-only request's transaction read-only even
// when it runs as the implicit transaction of a pipeline (no BEGIN).
// Turning read-only on is allowed at any point of a transaction; "off" is
// a no-op in a read-write one.
const SetupSQL = `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
 set_config('request.method', $3, true), set_config('request.path', $4, true),
 set_config('request.headers', $5, true), set_config('request.cookies', $6, true),
 set_config('statement_timeout', coalesce(nullif($7, ''), current_setting('statement_timeout')), true), set_config('search_path', $8, true),
 set_config('transaction_read_only', $9, true)`

// SetupParams is the number of parameters of SetupSQL.
const SetupParams = 9

// Caller is whom a transaction runs as and the request it serves.
type Caller struct {
	// Role is the database role to switch to; it must be allowed.
	Role string
	// Claims is request.jwt.claims as JSON; nil means {"role": Role}.
	Claims []byte
	// Method and Path are request.method and request.path.
	Method, Path string
	// Headers and Cookies are request.headers and request.cookies, JSON
	// objects; nil means {}.
	Headers, Cookies []byte
	// StatementTimeout is the transaction's statement_timeout; zero keeps
	// the server's.
	StatementTimeout time.Duration
	// SearchPath is the transaction's search_path; empty means
	// DefaultSearchPath.
	SearchPath string
	// ReadOnly makes the transaction read-only.
	ReadOnly bool
}

// DefaultSearchPath is the search_path of a request on the public schema.
const DefaultSearchPath = `"public", extensions`

// SetupArgs returns SetupSQL's parameters in text format.
func (c *Caller) SetupArgs() [][]byte {
	claims := c.Claims
	if claims == nil {
		claims = []byte(`{"role":` + strconv.Quote(c.Role) + `}`)
	}
	headers, cookies := c.Headers, c.Cookies
	if headers == nil {
		headers = []byte("{}")
	}
	if cookies == nil {
		cookies = []byte("{}")
	}
	timeout := ""
	if c.StatementTimeout > 0 {
		timeout = strconv.FormatInt(c.StatementTimeout.Milliseconds(), 10)
	}
	sp := c.SearchPath
	if sp == "" {
		sp = DefaultSearchPath
	}
	ro := "off"
	if c.ReadOnly {
		ro = "on"
	}
	return [][]byte{[]byte(c.Role), claims, []byte(c.Method), []byte(c.Path), headers, cookies,
		[]byte(timeout), []byte(sp), []byte(ro)}
}

// Reads says which of the request's settings (request.method,
// request.path, request.headers, request.cookies) something in the
// database reads. The gateway sends only those (SetupFor): the role, the
// claims, search_path and the access mode are always sent, since auth.uid()
// and every policy depend on them. The REST schema cache decides Reads from
// the catalog (functions, policies, views, defaults, checks); ReadsAll
// restores PostgREST's behaviour of setting everything.
type Reads uint8

// The request settings SetupFor may send.
const (
	ReadsMethod Reads = 1 << iota
	ReadsPath
	ReadsHeaders
	ReadsCookies
	ReadsAll = ReadsMethod | ReadsPath | ReadsHeaders | ReadsCookies
)

// setupShapes holds SetupFor's statements by shape: the Reads bits, then
// whether a statement_timeout is set. Built once: each is a distinct
// prepared statement, so the texts must not be rebuilt per request.
var setupShapes = func() (t [32]string) {
	for i := range t {
		t[i] = buildSetup(Reads(i&15), i&16 != 0)
	}
	return t
}()

// buildSetup writes the setup statement of one shape. Its parameters are
// role, claims, search_path, transaction_read_only, then the chosen
// request settings in Reads order, then the timeout.
func buildSetup(r Reads, timeout bool) string {
	var b strings.Builder
	b.WriteString(`SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),` +
		` set_config('search_path', $3, true), set_config('transaction_read_only', $4, true)`)
	n := 4
	for i, name := range [...]string{"request.method", "request.path", "request.headers", "request.cookies"} {
		if r&(1<<i) != 0 {
			n++
			fmt.Fprintf(&b, ", set_config('%s', $%d, true)", name, n)
		}
	}
	if timeout {
		fmt.Fprintf(&b, ", set_config('statement_timeout', $%d, true)", n+1)
	}
	return b.String()
}

// SetupFor is the setup statement and its text parameters for a caller
// whose database reads r. It differs from SetupSQL only in what it leaves
// out: request settings nothing reads, and a statement_timeout equal to
// the server's own (SetupSQL sets it to its current value, a no-op).
// Headers and Cookies are only read when r names them, so a caller may
// leave them nil without building them.
func (c *Caller) SetupFor(r Reads) (string, [][]byte) {
	claims := c.Claims
	if claims == nil {
		claims = []byte(`{"role":` + strconv.Quote(c.Role) + `}`)
	}
	sp := c.SearchPath
	if sp == "" {
		sp = DefaultSearchPath
	}
	ro := readWrite
	if c.ReadOnly {
		ro = readOnly
	}
	args := make([][]byte, 4, 9)
	args[0], args[1], args[2], args[3] = []byte(c.Role), claims, []byte(sp), ro
	for i, v := range [...][]byte{[]byte(c.Method), []byte(c.Path), c.Headers, c.Cookies} {
		if r&(1<<i) != 0 {
			if v == nil {
				v = emptyObject
			}
			args = append(args, v)
		}
	}
	shape := int(r & ReadsAll)
	if c.StatementTimeout > 0 {
		shape |= 16
		args = append(args, strconv.AppendInt(nil, c.StatementTimeout.Milliseconds(), 10))
	}
	return setupShapes[shape], args
}

// The constant values SetupFor sends; the pipeline only reads them.
var (
	readOnly    = []byte("on")
	readWrite   = []byte("off")
	emptyObject = []byte("{}")
)

// ErrRoleNotAllowed is returned for a role outside the allow-list.
var ErrRoleNotAllowed = errors.New("db: role not allowed")

// AllowedRoles are the roles a JWT may name.
var AllowedRoles = map[string]bool{"anon": true, "authenticated": true, "service_role": true}

// CheckRole refuses a role outside AllowedRoles and extra (the configured
// anonymous role).
func CheckRole(role string, extra ...string) error {
	if AllowedRoles[role] {
		return nil
	}
	for _, r := range extra {
		if r == role {
			return nil
		}
	}
	return fmt.Errorf("%w: %q", ErrRoleNotAllowed, role)
}

// TxBeginner is what can start a transaction: a pool or one connection.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// AsCaller runs fn in one transaction as c, set up with SetupSQL. It
// commits when fn returns nil and rolls back otherwise.
func AsCaller(ctx context.Context, db TxBeginner, c Caller, fn func(pgx.Tx) error) error {
	if err := CheckRole(c.Role); err != nil {
		return err
	}
	opts := pgx.TxOptions{}
	if c.ReadOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	return pgx.BeginTxFunc(ctx, db, opts, func(tx pgx.Tx) error {
		args := c.SetupArgs()
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = string(a)
		}
		if _, err := tx.Exec(ctx, SetupSQL, vals...); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Tx is AsCaller for a role and its claims alone, as the tests' RLS
// matrix uses it.
func Tx(ctx context.Context, db TxBeginner, role string, claimsJSON []byte, readOnly bool, fn func(pgx.Tx) error) error {
	return AsCaller(ctx, db, Caller{Role: role, Claims: claimsJSON, ReadOnly: readOnly}, fn)
}
