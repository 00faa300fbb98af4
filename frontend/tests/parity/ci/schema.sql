-- A stranger's schema (a recipe box), set up the way a project moving from
-- PostgREST would: the API is configured only through PostgREST's
-- in-database settings on the authenticator role, never the gateway's
-- environment. pkg/app/parity_test.go applies this file to one database,
-- starts one gateway and runs ci/*.test.mjs against it in name order.

alter role authenticator set pgrst.db_schemas = 'public, kitchen';
alter role authenticator set pgrst.db_aggregates_enabled = 'true';
alter role authenticator set pgrst.db_plan_enabled = 'true';
alter role authenticator set pgrst.db_tx_end = 'commit-allow-override';
alter role authenticator set pgrst.db_extra_search_path = 'public, extensions, helpers';
alter role authenticator set pgrst.db_pre_request = 'public.check_request';
alter role authenticator set pgrst.openapi_mode = 'ignore-privileges';
notify pgrst, 'reload config';

create table public.cooks (
  username text primary key,
  country  text not null
);

create table public.recipes (
  id            serial primary key,
  title         text not null,
  cook          text references public.cooks (username),
  servings      int not null default 2,
  parent_id     int constraint recipes_parent_id_fkey references public.recipes (id),
  season        int4range,
  created_at    timestamptz not null default now()
);

create table public.ratings (
  id        serial primary key,
  recipe_id int not null references public.recipes (id),
  stars     int not null check (stars between 1 and 5)
);

-- Not granted to anyone: only openapi_mode = ignore-privileges lists it.
create table public.secret_sauce (id int primary key, formula text);

create schema kitchen;
create table kitchen.pantry (id int primary key, item text not null);

create schema helpers;
create function helpers.greeting() returns text language sql stable as $$ select 'bon appétit' $$;

-- Inserted out of id order, so the heap order (what an unordered read
-- scans) differs from the key order.
insert into public.cooks (username, country) values
  ('ana', 'PT'), ('bruno', 'BR'), ('chen', 'TW'), ('dora', 'DE');
insert into public.recipes (id, title, cook, servings, parent_id, season) values
  (3, 'Pastel de nata', 'ana', 12, null, '[10,20)'),
  (1, 'Caldo verde', 'ana', 4, null, '[1,5)'),
  (2, 'Feijoada', 'bruno', 8, null, '[5,9)'),
  (5, 'Caldo verde with chouriço', 'ana', 4, 1, '[1,6)'),
  (4, 'Beef noodle soup', 'chen', 2, null, null);
select setval('public.recipes_id_seq', 5);
insert into public.ratings (recipe_id, stars) values (3, 5), (1, 4), (3, 4), (2, 5), (5, 3);
insert into kitchen.pantry values (1, 'salt'), (2, 'olive oil');

-- Computed field of recipes, and a function returning recipes rows.
create function public.shout_title(public.recipes) returns text language sql stable as $$ select upper($1.title) $$;
create function public.recipes_by_cook(cook_name text) returns setof public.recipes
  language sql stable as $$ select * from public.recipes where cook = cook_name order by id $$;

-- Single unnamed parameters: json, jsonb, text take a body; int and
-- boolean are never exposed.
create function public.echo_json(json) returns json language sql immutable as $$ select $1 $$;
create function public.echo_text(text) returns text language sql immutable as $$ select 'got ' || $1 $$;
create function public.echo_int(int) returns int language sql immutable as $$ select $1 $$;
create function public.echo_bool(boolean) returns boolean language sql immutable as $$ select $1 $$;

-- Overloads differing by unnamed parameters and defaults.
create function public.pick() returns text language sql immutable as $$ select 'none' $$;
create function public.pick(int default 42) returns text language sql immutable as $$ select 'int ' || $1 $$;
create function public.pick(text default 'x') returns text language sql immutable as $$ select 'text ' || $1 $$;
-- Overloads by names.
create function public.portions(factor int) returns int language sql immutable as $$ select factor * 2 $$;
create function public.portions(factor int, extra int) returns int language sql immutable as $$ select factor * 2 + extra $$;
-- Same names, other types: PGRST203.
create function public.season_of(m int) returns text language sql immutable as $$ select 'int' $$;
create function public.season_of(m text) returns text language sql immutable as $$ select 'text' $$;

-- Needs db_extra_search_path: greeting() lives in helpers.
create function public.greet() returns text language plpgsql stable as $$ begin return greeting(); end $$;

-- db_pre_request: a closed kitchen refuses every request.
create function public.check_request() returns void language plpgsql as $$
begin
  if current_setting('request.headers', true)::json->>'x-kitchen' = 'closed' then
    raise sqlstate 'PGRST' using
      message = '{"code":"KITCHEN","message":"The kitchen is closed"}',
      detail = '{"status":403,"headers":{"X-Kitchen":"closed"}}';
  end if;
end $$;

-- How the suite changes configuration at run time: the way an operator
-- would (ALTER ROLE authenticator … SET pgrst.…, NOTIFY pgrst), behind a
-- function only service_role may call.
create function public.pgrst_setting(name text, value text) returns void
  language plpgsql security definer set search_path = '' as $$
begin
  if name !~ '^[a-z_]+$' then
    raise exception 'bad setting name %', name;
  end if;
  if value is null then
    execute format('alter role authenticator reset %I', 'pgrst.' || name);
  else
    execute format('alter role authenticator set %I = %L', 'pgrst.' || name, value);
  end if;
  perform pg_notify('pgrst', 'reload config');
end $$;
revoke execute on function public.pgrst_setting(text, text) from public, anon, authenticated;

grant usage on schema kitchen, helpers to anon, authenticated, service_role;
grant select on public.cooks, public.recipes, public.ratings, kitchen.pantry to anon, authenticated;
grant insert, update on public.recipes, public.cooks to anon, authenticated;
grant usage on sequence public.recipes_id_seq to anon, authenticated;
grant all on public.cooks, public.recipes, public.ratings, public.secret_sauce, kitchen.pantry to service_role;
grant usage on all sequences in schema public to service_role;
grant execute on all functions in schema public, helpers to anon, authenticated, service_role;
revoke execute on function public.pgrst_setting(text, text) from anon, authenticated;
