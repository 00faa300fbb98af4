-- Applied after schema.sql when PostGIS can be installed.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE public.shops (
  id       bigint PRIMARY KEY,
  address  text,
  shop_geom geometry(POINT, 4326)
);
INSERT INTO public.shops (id, address, shop_geom) VALUES
  (1, '1369 Cambridge St', ST_SetSRID(ST_MakePoint(-71.10044, 42.373695), 4326)),
  (2, '757 Massachusetts Ave', ST_SetSRID(ST_MakePoint(-71.10543, 42.366432), 4326));
GRANT ALL ON public.shops TO anon, authenticated, service_role;
