package rest

import "testing"

const chatSQL = `
CREATE TABLE public.channels (id int PRIMARY KEY, slug text NOT NULL);
CREATE TABLE public.users (username text PRIMARY KEY, status text);
CREATE TABLE public.messages (
  id int PRIMARY KEY, message text, username text REFERENCES public.users,
  channel_id int REFERENCES public.channels,
  reply_to int CONSTRAINT messages_reply_to_fkey REFERENCES public.messages (id));
CREATE TABLE public.pairs (id int PRIMARY KEY, first_user text REFERENCES public.users, second_user text REFERENCES public.users);
GRANT SELECT ON public.channels, public.users, public.messages, public.pairs TO anon;
INSERT INTO public.channels VALUES (1, 'public'), (2, 'random');
INSERT INTO public.users VALUES ('supabot', 'ONLINE'), ('kiwicopple', 'OFFLINE'), ('awailas', 'ONLINE');
INSERT INTO public.pairs VALUES (1, 'supabot', 'awailas');
INSERT INTO public.messages VALUES (1, 'Hello', 'supabot', 1, NULL), (2, 'Hi', 'kiwicopple', 2, 1), (3, 'Yo', 'supabot', 1, 1);
`

// TestAggregatesAndEmbeds checks PostgREST's answers for the bare count
// aggregate, empty embeds, self-reference hints and the names its errors
// give embedded resources (table_depth, as its SQL aliases them).
func TestAggregatesAndEmbeds(t *testing.T) {
	t.Parallel()
	e := setupEnv(t, map[string]string{"DB_AGGREGATES_ENABLED": "true"}, chatSQL)
	off := setup(t, chatSQL)
	u := "/rest/v1/users?"
	e.runScenarios(t, []scenario{
		{name: "bare count in an embed is count()", method: "GET", path: u + "select=username,messages(count)&order=username", who: "anon", status: 200,
			json: `[{"username":"awailas","messages":[{"count":0}]},{"username":"kiwicopple","messages":[{"count":1}]},{"username":"supabot","messages":[{"count":2}]}]`},
		{name: "nested bare count", method: "GET", path: "/rest/v1/channels?select=slug,messages(users(count))&order=id&messages.order=id", who: "anon", status: 200,
			json: `[{"slug":"public","messages":[{"users":{"count":1}},{"users":{"count":1}}]},{"slug":"random","messages":[{"users":{"count":1}}]}]`},
		{name: "top-level bare count", method: "GET", path: u + "select=count", who: "anon", status: 200, json: `[{"count":3}]`},
		{name: "an aggregate's error names the embed as PostgREST aliases it", method: "GET", path: u + "select=username,messages(sum)", who: "anon", status: 400, code: "42703",
			has: []string{`"message":"column messages_1.sum does not exist"`}},
		{name: "empty embed filters but is not returned", method: "GET", path: u + "select=username,messages!inner()&messages.channel_id=eq.2", who: "anon", status: 200,
			json: `[{"username":"kiwicopple"}]`},
		{name: "empty embed with a null filter", method: "GET", path: u + "select=username,messages()&messages=is.null", who: "anon", status: 200,
			json: `[{"username":"awailas"}]`},
		{name: "self-reference by column", method: "GET", path: "/rest/v1/messages?select=id,reply_to(id),replies:messages!reply_to(id)&id=eq.1", who: "anon", status: 200,
			json: `[{"id":1,"reply_to":null,"replies":[{"id":2},{"id":3}]}]`},
		{name: "two unlabelled embeds of one table collide as in PostgREST's SQL", method: "GET", path: "/rest/v1/pairs?select=users!first_user(*),users!second_user(*)", who: "anon", status: 400, code: "42712",
			has: []string{`"message":"table name \"pairs_users_1\" specified more than once"`}},
		{name: "labelled, they do not", method: "GET", path: "/rest/v1/pairs?select=a:users!first_user(username),b:users!second_user(username)", who: "anon", status: 200,
			json: `[{"a":{"username":"supabot"},"b":{"username":"awailas"}}]`},
		{name: "self-reference hinted by constraint name is PGRST200", method: "GET", path: "/rest/v1/messages?select=id,messages!messages_reply_to_fkey(id)", who: "anon", status: 400, code: "PGRST200"},
	})
	off.runScenarios(t, []scenario{
		{name: "bare count needs aggregates", method: "GET", path: u + "select=username,messages(count)", who: "anon", status: 400, code: "PGRST123"},
	})
}
