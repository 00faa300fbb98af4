-- The auth rate limits' token buckets, shared by every gateway on the
-- database (RATE_LIMIT_STORE=database), so N gateways behind a balancer
-- allow the configured rate, not N times it.
--
-- UNLOGGED: a crash forgets the buckets, which only refills them; in
-- exchange a bucket update writes no WAL.
CREATE UNLOGGED TABLE IF NOT EXISTS auth.rate_limits (
    bucket     text NOT NULL,
    key        text NOT NULL,
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bucket, key)
);
REVOKE ALL ON auth.rate_limits FROM PUBLIC;

-- take_rate_limit_token refills the bucket for the time since its last
-- use (p_rate tokens a second, at most p_burst) and takes one token if
-- there is one, all under the row's lock, so concurrent gateways never
-- both take the last token. tokens is what is left; a refusal waits
-- (1 - tokens) / p_rate seconds. p_now comes from the caller so that the
-- gateways' clock (and a test's fake one) rules.
CREATE OR REPLACE FUNCTION auth.take_rate_limit_token(
    p_bucket text, p_key text, p_rate double precision, p_burst double precision, p_now timestamptz,
    OUT allowed boolean, OUT tokens double precision)
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO auth.rate_limits AS b (bucket, key, tokens, updated_at)
    VALUES (p_bucket, p_key, p_burst, p_now)
    ON CONFLICT (bucket, key) DO UPDATE
        SET tokens = least(p_burst,
                b.tokens + greatest(0, extract(epoch FROM p_now - b.updated_at)::double precision) * p_rate),
            updated_at = greatest(b.updated_at, p_now)
    RETURNING b.tokens INTO tokens;
    allowed := tokens >= 1;
    IF allowed THEN
        tokens := tokens - 1;
        UPDATE auth.rate_limits AS b SET tokens = take_rate_limit_token.tokens
        WHERE b.bucket = p_bucket AND b.key = p_key;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION auth.take_rate_limit_token(text, text, double precision, double precision, timestamptz) FROM PUBLIC;
