package rest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A one-object insert binds its values in a VALUES list instead of going
// through json_populate_recordset: every value must be stored exactly as
// json_populate_recordset stores it, and every value it refuses must be
// refused with the same SQLSTATE.
func TestOneRowInsertMatchesJSONPopulate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, `CREATE TYPE public.mood AS ENUM ('calm', 'loud');
		CREATE DOMAIN public.short_text AS text CHECK (length(VALUE) < 6);
		CREATE TABLE public.typed (id serial PRIMARY KEY, i int, n numeric, n2 numeric(5,2), b bool, t text,
		  vc varchar(3), ch char(2), ts timestamptz, d date, j json, jb jsonb, arr int[], m public.mood,
		  dom public.short_text, u uuid);
		GRANT SELECT, INSERT ON public.typed TO anon; GRANT USAGE ON SEQUENCE public.typed_id_seq TO anon`)
	cases := []string{
		`{"i": 7}`, `{"i": "7"}`, `{"i": 7.5}`, `{"i": true}`, `{"i": null}`, `{"i": "x"}`, `{"i": 99999999999}`,
		`{"n": 1.50}`, `{"n": "1e3"}`, `{"n2": 1.005}`, `{"n2": 12345.6}`,
		`{"b": true}`, `{"b": "yes"}`, `{"b": 1}`, `{"b": "maybe"}`,
		`{"t": "plain"}`, `{"t": "esc \" \\ \/ \n \t"}`, `{"t": 12.50}`, `{"t": false}`, `{"t": "caf\u00e9"}`, `{"t": "nul\u0000"}`,
		`{"t": {"a": 1}}`, `{"t": [1, 2]}`,
		`{"vc": "abc"}`, `{"vc": "abcd"}`, `{"ch": "abc"}`, `{"ch": "a"}`,
		`{"ts": "2024-01-02T03:04:05Z"}`, `{"ts": "not a time"}`, `{"d": "2024-02-30"}`,
		`{"j": {"a": [1, 2.50]}}`, `{"j": "str"}`, `{"j": 1.50}`, `{"jb": {"b": 1, "a": 2}}`, `{"jb": [true, null]}`, `{"jb": null}`,
		`{"arr": [1, 2]}`, `{"arr": "{3,4}"}`, `{"arr": "x"}`,
		`{"m": "calm"}`, `{"m": "sad"}`, `{"dom": "short"}`, `{"dom": "too long"}`,
		`{"u": "0b8e1c52-4f3a-4c55-8c1e-6d0d2a9b7e33"}`, `{"u": "nope"}`,
		`{"i": 1, "t": "two", "jb": {}, "b": false}`,
	}
	for _, body := range cases {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var cols []string
		for k := range obj {
			cols = append(cols, k)
		}
		list := strings.Join(cols, ", ")
		// What json_populate_recordset stores, or the SQLSTATE it raises.
		var want string
		err := e.db.Pool.QueryRow(ctx, `SELECT row(`+list+`)::text FROM json_populate_recordset(NULL::public.typed, $1::json)`,
			"["+body+"]").Scan(&want)
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			want = "error " + pe.Code
		} else if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		r := e.do("POST", "/rest/v1/typed?select="+list, "", body, "Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json")
		var got string
		if r.status != 201 {
			var pgErr struct{ Code string }
			_ = json.Unmarshal([]byte(r.body), &pgErr)
			got = "error " + pgErr.Code
		} else if err := e.db.Pool.QueryRow(ctx, `SELECT row(`+list+`)::text FROM public.typed ORDER BY id DESC LIMIT 1`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: stored %s, json_populate_recordset %s (response %d %s)", body, got, want, r.status, r.body)
		}
	}
}
