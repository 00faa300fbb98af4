DROP FUNCTION IF EXISTS public.validate_invite_code(text);
DROP TRIGGER IF EXISTS redeem_invite_code ON auth.users;
DROP FUNCTION IF EXISTS private.redeem_invite_code();
DROP TABLE IF EXISTS public.invite_redemptions;
DROP TABLE IF EXISTS public.invite_codes;
DROP SCHEMA IF EXISTS private CASCADE;
