-- Platform layer: Supabase Storage's schema. Table, column and function
-- names mirror supabase/storage's, so a project's own storage policies (and
-- seeds such as storage-js's test/supabase/seed.sql) apply unchanged. The
-- gateway's /storage/v1 runs every statement as the caller's role with the
-- caller's claims, so RLS on these two tables decides every operation;
-- service_role bypasses it, as on Supabase.

-- Supabase projects have pgcrypto in the extensions schema (seeds call
-- extensions.crypt/gen_salt to create users).
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;

CREATE SCHEMA IF NOT EXISTS storage;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                 WHERE n.nspname = 'storage' AND t.typname = 'buckettype') THEN
    CREATE TYPE storage.buckettype AS ENUM ('STANDARD', 'ANALYTICS', 'VECTOR');
  END IF;
END
$$;

CREATE TABLE storage.buckets (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner uuid,
  owner_id text,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  public boolean DEFAULT false,
  avif_autodetection boolean DEFAULT false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type storage.buckettype NOT NULL DEFAULT 'STANDARD',
  CONSTRAINT buckets_name_length CHECK (char_length(name) <= 100)
);
CREATE UNIQUE INDEX bname ON storage.buckets USING btree (name);

CREATE TABLE storage.objects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bucket_id text REFERENCES storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] GENERATED ALWAYS AS (string_to_array(name, '/')) STORED
);
CREATE UNIQUE INDEX bucketid_objname ON storage.objects USING btree (bucket_id, name);
-- Listing by prefix walks names in byte order within a bucket.
CREATE INDEX objects_bucket_name_c ON storage.objects (bucket_id, name COLLATE "C");
-- The sweep asks whether a stored version is still referenced.
CREATE INDEX objects_version ON storage.objects (version);

ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;

-- As on Supabase, the API roles hold every table privilege; the policies a
-- project writes decide what each caller may do.
GRANT ALL ON storage.buckets, storage.objects TO anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION storage.foldername(name text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  _parts text[];
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  RETURN _parts[1:array_length(_parts, 1) - 1];
END
$$;

CREATE OR REPLACE FUNCTION storage.filename(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  _parts text[];
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  RETURN _parts[array_length(_parts, 1)];
END
$$;

CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  _filename text;
BEGIN
  _filename := storage.filename(name);
  IF _filename IS NULL OR position('.' in _filename) = 0 THEN
    RETURN '';
  END IF;
  RETURN reverse(split_part(reverse(_filename), '.', 1));
END
$$;

-- The operation the gateway is serving (storage.object.upload, ...), for
-- policies that want to tell them apart, as on Supabase.
CREATE OR REPLACE FUNCTION storage.operation() RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT current_setting('storage.operation', true)
$$;

CREATE OR REPLACE FUNCTION storage.update_updated_at_column() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END
$$;

CREATE TRIGGER update_objects_updated_at BEFORE UPDATE ON storage.objects
  FOR EACH ROW EXECUTE FUNCTION storage.update_updated_at_column();

CREATE OR REPLACE FUNCTION storage.get_size_by_bucket()
RETURNS TABLE (size bigint, bucket_id text)
LANGUAGE sql STABLE AS $$
  SELECT sum((metadata ->> 'size')::bigint)::bigint AS size, obj.bucket_id
    FROM storage.objects AS obj
   GROUP BY obj.bucket_id
$$;

GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text),
  storage.operation(), storage.get_size_by_bucket() TO anon, authenticated, service_role;

-- The admin console's storage view: objects and bytes per bucket. Admins
-- only (private.assert_admin), whatever the policies on storage.objects say.
CREATE OR REPLACE FUNCTION public.admin_storage_use()
RETURNS TABLE (bucket_id text, bucket_name text, public boolean, objects bigint, bytes bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  RETURN QUERY
    SELECT b.id, b.name, coalesce(b.public, false), count(o.id),
           coalesce(sum((o.metadata ->> 'size')::bigint), 0)::bigint
      FROM storage.buckets b
      LEFT JOIN storage.objects o ON o.bucket_id = b.id
     GROUP BY b.id, b.name, b.public
     ORDER BY b.id;
END
$$;
REVOKE ALL ON FUNCTION public.admin_storage_use() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.admin_storage_use() TO authenticated, service_role;
