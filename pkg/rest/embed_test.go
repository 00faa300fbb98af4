package rest

import "testing"

// embedSQL adds a one-to-one pair (by unique constraint and by primary
// key), a many-to-many pair through a junction, a second junction for
// disambiguation, and a link table that is no junction (its key does not
// cover the foreign keys).
const embedSQL = `
CREATE TABLE public.persons (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE public.passports (id int PRIMARY KEY, person_id int NOT NULL UNIQUE REFERENCES public.persons (id), number text);
CREATE TABLE public.person_details (person_id int PRIMARY KEY REFERENCES public.persons (id), height int);
CREATE TABLE public.visits (id int PRIMARY KEY, person_id int REFERENCES public.persons (id), place text);
CREATE TABLE public.clubs (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE public.memberships (person_id int REFERENCES public.persons (id), club_id int REFERENCES public.clubs (id), since int,
  PRIMARY KEY (person_id, club_id));
CREATE TABLE public.bans (id int PRIMARY KEY, person_id int NOT NULL REFERENCES public.persons (id), club_id int NOT NULL REFERENCES public.clubs (id),
  UNIQUE (person_id, club_id));
CREATE TABLE public.sightings (id int PRIMARY KEY, person_id int REFERENCES public.persons (id), club_id int REFERENCES public.clubs (id));
GRANT SELECT, INSERT, UPDATE, DELETE ON public.persons, public.passports, public.person_details, public.visits, public.clubs,
  public.memberships, public.bans, public.sightings TO authenticated;
INSERT INTO public.persons VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy');
INSERT INTO public.passports VALUES (10, 1, 'P-1'), (20, 2, 'P-2');
INSERT INTO public.person_details VALUES (1, 170);
INSERT INTO public.visits VALUES (1, 1, 'Oslo'), (2, 1, 'Rome');
INSERT INTO public.clubs VALUES (1, 'Chess'), (2, 'Go'), (3, 'Bridge');
INSERT INTO public.memberships VALUES (1, 1, 2020), (1, 2, 2021), (2, 2, 2022);
INSERT INTO public.bans VALUES (1, 3, 3);
INSERT INTO public.sightings VALUES (1, 3, 1);
`

func TestOneToOneEmbedding(t *testing.T) {
	t.Parallel()
	e := setup(t, embedSQL)
	p := "/rest/v1/persons?order=id&"
	e.runScenarios(t, []scenario{
		{name: "unique fk embeds as object or null", method: "GET", path: p + "select=name,passports(number)", who: "A", status: 200,
			json: `[{"name":"Ann","passports":{"number":"P-1"}},{"name":"Bob","passports":{"number":"P-2"}},{"name":"Cy","passports":null}]`},
		{name: "primary key fk embeds as object", method: "GET", path: p + "select=id,person_details(height)", who: "A", status: 200,
			json: `[{"id":1,"person_details":{"height":170}},{"id":2,"person_details":null},{"id":3,"person_details":null}]`},
		{name: "plain fk stays an array", method: "GET", path: p + "select=id,visits(place)&visits.order=id&id=eq.1", who: "A", status: 200,
			json: `[{"id":1,"visits":[{"place":"Oslo"},{"place":"Rome"}]}]`},
		{name: "referencing side is an object", method: "GET", path: "/rest/v1/passports?select=number,persons(name)&order=id", who: "A", status: 200,
			json: `[{"number":"P-1","persons":{"name":"Ann"}},{"number":"P-2","persons":{"name":"Bob"}}]`},
		{name: "inner one-to-one", method: "GET", path: p + "select=id,passports!inner(number)", who: "A", status: 200,
			json: `[{"id":1,"passports":{"number":"P-1"}},{"id":2,"passports":{"number":"P-2"}}]`},
		{name: "null filter on one-to-one", method: "GET", path: p + "select=id,passports(number)&passports=is.null", who: "A", status: 200,
			json: `[{"id":3,"passports":null}]`},
		{name: "spread one-to-one", method: "GET", path: p + "select=id,...passports(number)&id=lt.3", who: "A", status: 200,
			json: `[{"id":1,"number":"P-1"},{"id":2,"number":"P-2"}]`},
		{name: "related order on one-to-one", method: "GET", path: "/rest/v1/persons?select=id,passports(number)&order=passports(number).desc.nullslast", who: "A", status: 200,
			json: `[{"id":2,"passports":{"number":"P-2"}},{"id":1,"passports":{"number":"P-1"}},{"id":3,"passports":null}]`},
		{name: "related order on one-to-many refused", method: "GET", path: p + "select=id,visits(place)&order=visits(place)", who: "A", status: 400, code: "PGRST118"},
		{name: "singular with one-to-one", method: "GET", path: p + "select=name,passports(number)&id=eq.2", who: "A", status: 200,
			hdr: []string{"Accept", "application/vnd.pgrst.object+json"}, json: `{"name":"Bob","passports":{"number":"P-2"}}`},
		{name: "write representation with one-to-one", method: "PATCH", path: "/rest/v1/persons?id=eq.1&select=name,passports(number)", who: "A", body: `{"name":"Anna"}`,
			hdr: []string{"Prefer", "return=representation"}, status: 200, json: `[{"name":"Anna","passports":{"number":"P-1"}}]`},
	})
}

func TestManyToManyEmbedding(t *testing.T) {
	t.Parallel()
	e := setup(t, embedSQL)
	p := "/rest/v1/persons?order=id&"
	e.runScenarios(t, []scenario{
		{name: "two junctions are ambiguous", method: "GET", path: p + "select=id,clubs(name)", who: "A", status: 300, code: "PGRST201",
			has: []string{`"many-to-many"`, `'clubs!memberships'`, `'clubs!bans'`, `memberships using memberships_person_id_fkey(person_id) and memberships_club_id_fkey(club_id)`}},
		{name: "junction hint picks memberships", method: "GET", path: p + "select=id,clubs!memberships(name)&clubs.order=name", who: "A", status: 200,
			json: `[{"id":1,"clubs":[{"name":"Chess"},{"name":"Go"}]},{"id":2,"clubs":[{"name":"Go"}]},{"id":3,"clubs":[]}]`},
		{name: "junction by unique constraint", method: "GET", path: p + "select=id,clubs!bans(name)", who: "A", status: 200,
			json: `[{"id":1,"clubs":[]},{"id":2,"clubs":[]},{"id":3,"clubs":[{"name":"Bridge"}]}]`},
		{name: "reverse direction", method: "GET", path: "/rest/v1/clubs?select=name,persons!memberships(name)&persons.order=id&order=id", who: "A", status: 200,
			json: `[{"name":"Chess","persons":[{"name":"Ann"}]},{"name":"Go","persons":[{"name":"Ann"},{"name":"Bob"}]},{"name":"Bridge","persons":[]}]`},
		{name: "inner many-to-many with filter", method: "GET", path: p + "select=id,clubs!memberships!inner(name)&clubs.name=eq.Go", who: "A", status: 200,
			json: `[{"id":1,"clubs":[{"name":"Go"}]},{"id":2,"clubs":[{"name":"Go"}]}]`},
		{name: "limit and order in many-to-many", method: "GET", path: p + "select=id,clubs!memberships(name)&clubs.order=name.desc&clubs.limit=1&id=eq.1", who: "A", status: 200,
			json: `[{"id":1,"clubs":[{"name":"Go"}]}]`},
		{name: "null filter on many-to-many", method: "GET", path: p + "select=id,clubs!memberships(name)&clubs=not.is.null", who: "A", status: 200,
			json: `[{"id":1,"clubs":[{"name":"Chess"},{"name":"Go"}]},{"id":2,"clubs":[{"name":"Go"}]}]`},
		{name: "junction still embeds one-to-many", method: "GET", path: p + "select=id,memberships(since)&memberships.order=since&id=eq.1", who: "A", status: 200,
			json: `[{"id":1,"memberships":[{"since":2020},{"since":2021}]}]`},
		{name: "non-junction is not many-to-many", method: "GET", path: p + "select=id,clubs!sightings(name)", who: "A", status: 400, code: "PGRST200"},
		{name: "unknown hint", method: "GET", path: p + "select=id,clubs!nope(name)", who: "A", status: 400, code: "PGRST200"},
		{name: "related order on many-to-many refused", method: "GET", path: p + "select=id,clubs!memberships(name)&order=clubs(name)", who: "A", status: 400, code: "PGRST118"},
		// Arrays are aggregates: without them PostgREST refuses (spread_test.go has them on).
		{name: "spread on many-to-many needs aggregates", method: "GET", path: p + "select=id,...clubs!memberships(name)", who: "A", status: 400, code: "PGRST123"},
		{name: "nested through many-to-many", method: "GET", path: "/rest/v1/clubs?select=name,persons!memberships(name,passports(number))&id=eq.1", who: "A", status: 200,
			json: `[{"name":"Chess","persons":[{"name":"Ann","passports":{"number":"P-1"}}]}]`},
		{name: "insert representation with many-to-many", method: "POST", path: "/rest/v1/persons?select=id,clubs!memberships(name)", who: "A", body: `{"id":4,"name":"Dee"}`,
			hdr: []string{"Prefer", "return=representation"}, status: 201, json: `[{"id":4,"clubs":[]}]`},
	})
}
