DROP FUNCTION IF EXISTS auth.take_rate_limit_token(text, text, double precision, double precision, timestamptz);
DROP TABLE IF EXISTS auth.rate_limits;
