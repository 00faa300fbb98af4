package rest

import "testing"

// Spread embeds with aggregates enabled, on the embed fixture: persons
// 1 Ann (passport P-1, height 170, visits Oslo and Rome, clubs Chess and
// Go), 2 Bob (passport P-2, club Go), 3 Cy (nothing but a ban in Bridge).
// The answers follow PostgREST's SpreadQueriesSpec and
// AggregateFunctionsSpec: a to-one spread's aggregates are grouped into
// the parent, a to-many spread's columns are arrays and its aggregates
// one value per parent row.
func TestSpreadEmbeds(t *testing.T) {
	t.Parallel()
	e := setupEnv(t, map[string]string{"DB_AGGREGATES_ENABLED": "true"}, embedSQL,
		`INSERT INTO public.visits VALUES (3, 2, 'Oslo'), (4, NULL, 'Lima');
		 INSERT INTO public.sightings VALUES (2, 1, 2), (3, 2, 2);`)
	p := "/rest/v1/persons?order=id&"
	e.runScenarios(t, []scenario{
		{name: "to-many spread gives arrays in the embed's order", method: "GET", path: p + "select=id,...visits(place,vid:id)&visits.order=id.desc", who: "A", status: 200,
			json: `[{"id":1,"place":["Rome","Oslo"],"vid":[2,1]},{"id":2,"place":["Oslo"],"vid":[3]},{"id":3,"place":[],"vid":[]}]`},
		{name: "many-to-many spread gives arrays", method: "GET", path: p + "select=id,...clubs!memberships(name)&clubs.order=name", who: "A", status: 200,
			json: `[{"id":1,"name":["Chess","Go"]},{"id":2,"name":["Go"]},{"id":3,"name":[]}]`},
		{name: "to-many spread honours its page", method: "GET", path: p + "select=id,...visits(place)&visits.order=id&visits.limit=1&id=eq.1", who: "A", status: 200,
			json: `[{"id":1,"place":["Oslo"]}]`},
		{name: "count() in a to-many spread is per parent row", method: "GET", path: p + "select=name,...visits(count())", who: "A", status: 200,
			json: `[{"name":"Ann","count":2},{"name":"Bob","count":1},{"name":"Cy","count":0}]`},
		{name: "bare count in a to-many spread is count()", method: "GET", path: p + "select=name,...visits(n:count)", who: "A", status: 200,
			json: `[{"name":"Ann","n":2},{"name":"Bob","n":1},{"name":"Cy","n":0}]`},
		{name: "sum beside an array in a to-many spread", method: "GET", path: p + "select=id,...visits(id,total:id.sum())&visits.order=id", who: "A", status: 200,
			json: `[{"id":1,"id":[1,2],"total":3},{"id":2,"id":[3],"total":3},{"id":3,"id":[],"total":null}]`},
		{name: "aggregate cast in a to-many spread", method: "GET", path: p + "select=id,...visits(id.max()::text)&id=eq.1", who: "A", status: 200,
			json: `[{"id":1,"max":"2"}]`},
		{name: "to-one spread nested in a to-many spread is joined flat", method: "GET", path: "/rest/v1/clubs?order=id&select=name,...persons!memberships(pname:name,...passports(number))&persons.order=id", who: "A", status: 200,
			json: `[{"name":"Chess","pname":["Ann"],"number":["P-1"]},{"name":"Go","pname":["Ann","Bob"],"number":["P-1","P-2"]},{"name":"Bridge","pname":[],"number":[]}]`},
		{name: "aggregate of a to-one spread nested in a to-many spread", method: "GET", path: "/rest/v1/clubs?order=id&select=name,...persons!memberships(...person_details(height.sum()))", who: "A", status: 200,
			json: `[{"name":"Chess","sum":170},{"name":"Go","sum":170},{"name":"Bridge","sum":null}]`},
		{name: "to-many spread nested in a to-many spread is joined flat", method: "GET", path: "/rest/v1/clubs?order=id&select=name,...persons!memberships(pid:id,...visits(place))&id=eq.2&persons.order=id", who: "A", status: 200,
			json: `[{"name":"Go","pid":[1,1,2],"place":["Oslo","Rome","Oslo"]}]`},
		{name: "to-one spread aggregate is grouped into the parent", method: "GET", path: "/rest/v1/visits?select=place,...persons(n:count(),id.max())&order=place", who: "A", status: 200,
			json: `[{"place":"Lima","n":1,"max":null},{"place":"Oslo","n":2,"max":2},{"place":"Rome","n":1,"max":1}]`},
		{name: "to-one spread columns group with the parent's", method: "GET", path: "/rest/v1/visits?select=...persons(name),count()&order=persons(name)", who: "A", status: 200,
			json: `[{"name":"Ann","count":2},{"name":"Bob","count":1},{"name":null,"count":1}]`},
		{name: "nested to-one spreads hoist to the top parent", method: "GET", path: "/rest/v1/visits?select=...persons(name,...passports(number),c:count())&order=persons(name)", who: "A", status: 200,
			json: `[{"name":"Ann","number":"P-1","c":2},{"name":"Bob","number":"P-2","c":1},{"name":null,"number":null,"c":1}]`},
		{name: "to-one spread inside an embed groups that embed", method: "GET", path: p + "select=id,visits(...persons(pname:name),n:count())", who: "A", status: 200,
			json: `[{"id":1,"visits":[{"pname":"Ann","n":2}]},{"id":2,"visits":[{"pname":"Bob","n":1}]},{"id":3,"visits":[]}]`},
		{name: "related order by a to-one spread's alias", method: "GET", path: "/rest/v1/visits?select=...persons(who:name,n:count())&order=persons(who).desc.nullslast", who: "A", status: 200,
			json: `[{"who":"Bob","n":1},{"who":"Ann","n":2},{"who":null,"n":1}]`},
		{name: "embed inside a to-one spread is lifted", method: "GET", path: "/rest/v1/passports?select=number,...persons(name,person_details(height))&order=id", who: "A", status: 200,
			json: `[{"number":"P-1","name":"Ann","person_details":{"height":170}},{"number":"P-2","name":"Bob","person_details":null}]`},
		{name: "to-many spread inside a to-one spread is arrays per row", method: "GET", path: "/rest/v1/passports?select=number,...persons(...visits(place))&order=id&persons.visits.order=id", who: "A", status: 200,
			json: `[{"number":"P-1","place":["Oslo","Rome"]},{"number":"P-2","place":["Oslo"]}]`},
		{name: "filter inside a to-one spread", method: "GET", path: "/rest/v1/passports?select=number,...persons(name)&persons.name=eq.Bob&order=id", who: "A", status: 200,
			json: `[{"number":"P-1","name":null},{"number":"P-2","name":"Bob"}]`},
		{name: "inner to-one spread filters the parent", method: "GET", path: "/rest/v1/passports?select=number,...persons!inner(name)&persons.name=eq.Bob", who: "A", status: 200,
			json: `[{"number":"P-2","name":"Bob"}]`},
		{name: "unknown column in a spread aggregate", method: "GET", path: p + "select=id,...visits(nope.sum())", who: "A", status: 400, code: "42703"},
		{name: "unknown column in a to-one spread", method: "GET", path: "/rest/v1/visits?select=...persons(nope)", who: "A", status: 400, code: "42703"},
	})
}

// Without DB_AGGREGATES_ENABLED, PostgREST refuses a to-many spread (its
// arrays are aggregates) and an aggregate in a to-one spread, PGRST123;
// a plain to-one spread still works.
func TestSpreadEmbedsWithoutAggregates(t *testing.T) {
	t.Parallel()
	e := setup(t, embedSQL)
	e.runScenarios(t, []scenario{
		{name: "to-many spread", method: "GET", path: "/rest/v1/persons?select=id,...visits(place)", who: "A", status: 400, code: "PGRST123"},
		{name: "to-many spread in an embed", method: "GET", path: "/rest/v1/passports?select=persons(...visits(place))", who: "A", status: 400, code: "PGRST123"},
		{name: "aggregate in a to-one spread", method: "GET", path: "/rest/v1/visits?select=place,...persons(count())", who: "A", status: 400, code: "PGRST123"},
		{name: "to-one spread", method: "GET", path: "/rest/v1/visits?select=place,...persons(name)&id=eq.1", who: "A", status: 200, json: `[{"place":"Oslo","name":"Ann"}]`},
	})
}
