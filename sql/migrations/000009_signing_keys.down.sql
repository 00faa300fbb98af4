DROP TABLE IF EXISTS auth.signing_keys;
